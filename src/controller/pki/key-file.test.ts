import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MIN_SECRET_BYTES, PkiKeyMismatchError, readPkiKeyFile } from './key-file.js';

let tmp: string;
before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-pki-key-'));
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function keyFile(name: string, content: string, mode = 0o600): Promise<string> {
  const file = path.join(tmp, name);
  await writeFile(file, content, { mode });
  return file;
}

const SECRET = 'q'.repeat(MIN_SECRET_BYTES);

describe('the PKI key file', () => {
  it('seals text that only the same secret and context open', async () => {
    const key = readPkiKeyFile(await keyFile('a.key', `${SECRET}\n`));
    const sealed = key.seal('-----BEGIN PRIVATE KEY-----', 'certs');
    assert.doesNotMatch(sealed, /PRIVATE KEY/);
    assert.equal(key.open(sealed, 'certs'), '-----BEGIN PRIVATE KEY-----');
    assert.notEqual(key.seal('x', 'certs'), key.seal('x', 'certs'), 'a fresh salt and nonce each time');
    // The same secret read again (a second controller) opens it; the surrounding whitespace does not count.
    const again = readPkiKeyFile(await keyFile('a-again.key', `  ${SECRET}  \r\n`));
    assert.equal(again.open(sealed, 'certs'), '-----BEGIN PRIVATE KEY-----');
    assert.throws(() => key.open(sealed, 'other certs'), PkiKeyMismatchError);
    const flipped = `${sealed.slice(0, -4)}${sealed.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    assert.throws(() => key.open(flipped, 'certs'), PkiKeyMismatchError);
    assert.throws(() => key.open('v1.', 'certs'), PkiKeyMismatchError);
  });

  it('refuses another secret, naming the flag', async () => {
    const sealed = readPkiKeyFile(await keyFile('one.key', SECRET)).seal('keys', 'certs');
    const other = readPkiKeyFile(await keyFile('two.key', 'r'.repeat(MIN_SECRET_BYTES)));
    assert.throws(
      () => other.open(sealed, 'certs'),
      (err: Error) => {
        assert.ok(err instanceof PkiKeyMismatchError);
        assert.equal(err.name, 'ControllerStartError');
        assert.match(err.message, /do not open with --pki-key-file .*two\.key/);
        return true;
      },
    );
  });

  it('refuses a file other users may read, a short secret, and a missing file', async () => {
    for (const mode of [0o640, 0o604]) {
      const file = await keyFile(`open-${mode.toString(8)}.key`, SECRET, mode);
      const refusal = new RegExp(`may be read by other users \\(mode 0${mode.toString(8)}\\).*chmod 600`);
      assert.throws(() => readPkiKeyFile(file), refusal);
    }
    const short = await keyFile('short.key', 'correct horse battery staple\n');
    assert.throws(() => readPkiKeyFile(short), /holds 28 bytes: it needs a random secret of at least 32 .*openssl/);
    const absent = path.join(tmp, 'absent.key');
    assert.throws(() => readPkiKeyFile(absent), /--pki-key-file .*absent\.key cannot be read: ENOENT/);
    assert.throws(() => readPkiKeyFile(tmp), /is not a regular file/);
  });
});
