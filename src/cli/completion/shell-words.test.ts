import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testDeps } from '../testing/test-deps.js';
import { buildProgram } from '../main.js';
import { runComplete } from './command.js';
import type { CompletionSource } from './hints.js';
import type { Shell } from './scripts.js';
import { bashReply, typedWords, unquote } from './shell-words.js';

describe('words as the shell holds them', () => {
  it('reads quotes and backslashes, and the quote left open at the end', () => {
    assert.deepEqual(unquote('plain'), { value: 'plain', beforeOpen: '' });
    assert.deepEqual(unquote("'#sales,@"), { value: '#sales,@', open: "'", beforeOpen: '' });
    assert.deepEqual(unquote('"#sa'), { value: '#sa', open: '"', beforeOpen: '' });
    assert.deepEqual(unquote('\\#sa'), { value: '#sa', beforeOpen: '' });
    assert.deepEqual(unquote("'#sales'"), { value: '#sales', beforeOpen: '' });
    assert.deepEqual(unquote(`a'b c'd"e`), { value: 'ab cde', open: '"', beforeOpen: 'ab cd' });
    assert.deepEqual(unquote('"a\\"b\\c'), { value: 'a"b\\c', open: '"', beforeOpen: '' });
    assert.deepEqual(unquote("'a\\b"), { value: 'a\\b', open: "'", beforeOpen: '' });
    assert.deepEqual(unquote('a\\ b'), { value: 'a b', beforeOpen: '' });
  });

  it('quotes candidates for bash as its line editor inserts them: after an open quote, or escaped', () => {
    assert.equal(bashReply(unquote("'#sales,@"), '#sales,@laptop 7'), '#sales,@laptop 7');
    assert.equal(bashReply(unquote("'#sa"), "#sam's"), "#sam'\\''s");
    assert.equal(bashReply(unquote('"@'), '@a "b" $c'), '@a \\"b\\" \\$c');
    assert.equal(bashReply(unquote(`x'`), 'xyz'), 'yz');
    assert.equal(bashReply(unquote('\\#sa'), '#sales,@laptop 7'), '\\#sales,@laptop\\ 7');
    assert.equal(bashReply(unquote('we'), 'web-1.internal:443'), 'web-1.internal:443');
  });

  it('takes the words fish passes before the cursor as values, and the one under it as typed', () => {
    assert.deepEqual(
      typedWords('fish', ["'a", "'b"]).map((w) => w.value),
      ["'a", 'b'],
    );
    assert.deepEqual(
      typedWords('zsh', ["'a'", "'b"]).map((w) => w.value),
      ['a', 'b'],
    );
  });
});

describe('ctl __complete --shell', () => {
  const roles = async (source: CompletionSource) =>
    source.kind === 'role' ? ['#all', '#sales', '@laptop 7', '@laptop-8'] : [];

  async function complete(shell: Shell | undefined, ...words: string[]): Promise<string[]> {
    const deps = testDeps();
    await runComplete({ root: await buildProgram(deps), words, shell, dynamic: roles }, deps);
    return deps.io
      .stdoutText()
      .split('\n')
      .filter((l) => l !== '');
  }

  it('completes words that start with a quote or a backslash', async () => {
    const line = ['policy', 'create', 'dial', 'p', '--identities'];
    assert.deepEqual(await complete('zsh', ...line, "'#sa"), ['#sales']);
    const laptops = ['#sales,@laptop 7', '#sales,@laptop-8'];
    assert.deepEqual(await complete('fish', ...line, '"#sales,@'), laptops);
    assert.deepEqual(await complete('bash', ...line, "'#sales,@laptop"), laptops);
    const escaped = ['\\#sales,@laptop\\ 7', '\\#sales,@laptop-8'];
    assert.deepEqual(await complete('bash', ...line, '\\#sales,@laptop'), escaped);
    assert.deepEqual(await complete('bash', ...line.slice(0, -1), '--identities', '=', "'#s"), ['#sales']);
  });

  it('reads the words before the cursor as the shell holds them too', async () => {
    assert.deepEqual(await complete('bash', 'policy', 'create', 'dial', "'my p'", '--identities', "'#sa"), ['#sales']);
    const afterAssignment = ['policy', 'create', 'dial', 'p', "--identities='#all'", '--serv'];
    const [services] = await complete('zsh', ...afterAssignment);
    assert.equal(services.split('\t')[0], '--services');
  });

  it('takes the words as values without a shell (scripts of earlier versions)', async () => {
    assert.deepEqual(await complete(undefined, 'policy', 'create', 'dial', 'p', '--identities', "'#sa"), []);
    assert.deepEqual(await complete(undefined, 'policy', 'create', 'dial', 'p', '--identities', '#sa'), ['#sales']);
  });
});
