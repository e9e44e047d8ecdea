// `ctl controller start` flags of the security issue (docs/security.md): --admin-password warns on stderr that it
// is visible in ps; --admin-password-file sets the password without showing it; a second start on a directory in
// use exits with a usage error naming the directory.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { controllerProcesses } from '../helpers/controller-process.js';
import { freePort } from '../helpers/ports.js';
import { HttpHelper, randomPassword } from '../helpers/controller.js';
import { readFileSync } from 'node:fs';

const controllers = controllerProcesses();
const start = controllers.start;

describe('ctl controller start: secrets and the data directory', () => {
  it('--admin-password works but warns on stderr; --admin-password-file sets it without a warning', async () => {
    const dir = await controllers.tmpDir('ctl-flags-');
    const port = await freePort();
    const password = randomPassword();
    const a = await start(['--data-dir', path.join(dir, 'a'), '--port', String(port), '--admin-password', password]);
    assert.match(a.stderr(), /warning: --admin-password is visible/);
    a.child.kill('SIGTERM');
    await a.exited;

    const file = path.join(dir, 'admin-password');
    const filePassword = randomPassword();
    await writeFile(file, `${filePassword}\n`, { mode: 0o600 });
    const port2 = await freePort();
    const dataDir = path.join(dir, 'b');
    const b = await start(['--data-dir', dataDir, '--port', String(port2), '--admin-password-file', file]);
    try {
      assert.doesNotMatch(b.stderr(), /warning/);
      assert.doesNotMatch(b.stderr(), new RegExp(filePassword));
      const api = new HttpHelper(
        `https://127.0.0.1:${port2}`,
        readFileSync(path.join(dataDir, 'ca-bundle.pem'), 'utf8'),
      );
      await api.login('admin', filePassword);

      // A second start on the same directory is refused with a message naming it.
      const second = await start(['--data-dir', dataDir, '--port', String(await freePort())]);
      await second.exited;
      assert.notEqual(second.code(), 0);
      assert.ok(second.stderr().includes(dataDir), second.stderr());
    } finally {
      b.child.kill('SIGTERM');
      await b.exited;
    }
  });
});
