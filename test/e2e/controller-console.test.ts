// `ctl controller start --console DIR` (and CTL_CONSOLE_DIR): a built web console served under /zac/ on the
// controller's own HTTPS origin; a directory that is not a built console stops the start with a usage error.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { describe, it } from 'node:test';
import { randomPassword } from '../helpers/controller.js';
import { controllerProcesses } from '../helpers/controller-process.js';
import { freePort } from '../helpers/ports.js';

const controllers = controllerProcesses();

function start(dataDir: string, args: string[], env: Record<string, string> = {}) {
  return controllers.start(['--data-dir', dataDir, ...args], { CTL_ADMIN_PASSWORD: randomPassword(), ...env });
}

function get(url: string, ca: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('ctl controller start --console', () => {
  it('serves the directory under /zac/ (from CTL_CONSOLE_DIR) and says where', async () => {
    const dir = await controllers.tmpDir('ctl-console-');
    const site = path.join(dir, 'site');
    mkdirSync(site);
    writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>zac</title>');
    writeFileSync(path.join(site, 'main.js'), 'void 0;');
    const port = await freePort();
    const dataDir = path.join(dir, 'data');
    const c = await start(dataDir, ['--port', String(port)], { CTL_CONSOLE_DIR: site });
    try {
      assert.match(c.stderr(), new RegExp(`web console: https://127\\.0\\.0\\.1:${port}/zac/`));
      const ca = readFileSync(path.join(dataDir, 'ca-bundle.pem'), 'utf8');
      const page = await get(`https://127.0.0.1:${port}/zac/services`, ca);
      assert.equal(page.status, 200);
      assert.equal(page.body, '<!doctype html><title>zac</title>');
      const js = await get(`https://127.0.0.1:${port}/zac/main.js`, ca);
      assert.equal(js.type, 'text/javascript; charset=utf-8');
      assert.equal((await get(`https://127.0.0.1:${port}/edge/client/v1/version`, ca)).status, 200);
    } finally {
      c.child.kill('SIGTERM');
      await c.exited;
    }
  });

  it('refuses a directory without index.html, naming it', async () => {
    const dir = await controllers.tmpDir('ctl-console-');
    const c = await start(path.join(dir, 'data'), ['--port', String(await freePort()), '--console', dir]);
    await c.exited;
    assert.notEqual(c.code(), 0);
    assert.ok(c.stderr().includes(`console directory ${dir} has no index.html`), c.stderr());
  });
});
