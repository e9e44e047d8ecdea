import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startController } from '../index.js';

function get(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

test('the access log has one line per request, without the query string', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ctl-access-log-'));
  const lines: string[] = [];
  const controller = await startController({
    dataDir,
    port: 0,
    adminPassword: 'access-log-pw',
    accessLog: (l) => lines.push(l),
  });
  try {
    assert.equal(await get(`${controller.url}/edge/client/v1/version?secret=x`, controller.caBundlePem), 200);
    assert.equal(
      await get(`${controller.url}/edge/management/v1/identities?filter=name%3D%22bob%22`, controller.caBundlePem),
      401,
    );
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^GET \/edge\/client\/v1\/version 200 \d+ms \S+$/);
    assert.match(lines[1], /^GET \/edge\/management\/v1\/identities 401 \d+ms \S+$/);
    assert.ok(!lines.join('\n').includes('bob') && !lines.join('\n').includes('secret'));
  } finally {
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
