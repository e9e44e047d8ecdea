// CORS (docs/security.md): credentials are allowed only for origins configured with --cors-origin; any other
// origin gets plain CORS (`*`, no credentials), so a page elsewhere cannot ride a browser's credentials.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestController, assertStatus, startTestController } from '../helpers/controller.js';

let ctl: TestController;

before(async () => {
  ctl = await startTestController({ corsOrigins: ['https://console.example.com', 'HTTPS://Other.Example:8443/'] });
});
after(() => ctl?.close());

async function corsHeaders(origin: string) {
  const res = await ctl.api.get('/version', { api: 'root', headers: { origin } });
  assertStatus(res, 200);
  return {
    allowOrigin: res.headers['access-control-allow-origin'],
    credentials: res.headers['access-control-allow-credentials'],
  };
}

describe('CORS credentials only for configured origins', () => {
  it('echoes a configured origin, credentials allowed (matched case-insensitively, no trailing slash)', async () => {
    assert.deepEqual(await corsHeaders('https://console.example.com'), {
      allowOrigin: 'https://console.example.com',
      credentials: 'true',
    });
    assert.deepEqual(await corsHeaders('https://other.example:8443'), {
      allowOrigin: 'https://other.example:8443',
      credentials: 'true',
    });
  });

  it('answers any other origin with * and no credentials', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'https://console.example.com.evil.example',
      'http://console.example.com',
    ]) {
      assert.deepEqual(await corsHeaders(origin), { allowOrigin: '*', credentials: undefined }, origin);
    }
  });

  it('preflight of an unconfigured origin carries no credentials either', async () => {
    const res = await ctl.api.request('OPTIONS', '/identities', {
      token: null,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
  });
});
