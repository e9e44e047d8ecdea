import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { readStdin } from '../cli/generic/stdin.js';
import { UsageError } from './errors.js';
import type { IO } from './io.js';
import { checkArgumentsUtf8, decodeUtf8 } from './utf8.js';

const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
const usage = (pattern: RegExp) => (e: Error) => e instanceof UsageError && pattern.test(e.message);

describe('decodeUtf8', () => {
  it('decodes UTF-8 (dropping a byte-order mark) and refuses anything else, naming the source', () => {
    assert.equal(decodeUtf8(Buffer.from('café ✓'), 'x'), 'café ✓');
    assert.equal(decodeUtf8(Buffer.from('\uFEFF{}'), 'x'), '{}');
    assert.throws(() => decodeUtf8(latin1, 'data.json'), usage(/data\.json is not valid UTF-8/));
    assert.throws(() => decodeUtf8(latin1, 'f', InvalidArgumentError), InvalidArgumentError);
  });
});

describe('checkArgumentsUtf8', () => {
  it('refuses an argument holding U+FFFD (what Node makes of an invalid byte), naming it', () => {
    checkArgumentsUtf8(['identity', 'create', 'café']);
    assert.throws(
      () => checkArgumentsUtf8(['identity', 'create', 'caf\uFFFD']),
      (e: Error) => e instanceof UsageError && e.exitCode === 2 && /argument 3 .* is not valid UTF-8/.test(e.message),
    );
  });
});

describe('readStdin', () => {
  const io = (...chunks: Buffer[]) => ({ stdin: Readable.from(chunks) }) as unknown as IO;

  it('keeps a character whose bytes arrive in two chunks whole', async () => {
    const bytes = Buffer.from('{"name":"café"}');
    const cut = bytes.indexOf(0xc3) + 1;
    assert.equal(await readStdin(io(bytes.subarray(0, cut), bytes.subarray(cut))), '{"name":"café"}');
  });

  it('refuses stdin that is not UTF-8', async () => {
    await assert.rejects(readStdin(io(latin1)), usage(/stdin is not valid UTF-8/));
    await assert.rejects(readStdin(io(latin1, Buffer.from('\n')), { firstLine: true }), UsageError);
  });
});
