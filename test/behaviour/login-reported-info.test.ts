// What a client reports of itself at login (envInfo, sdkInfo) is written to its identity only where it changed: SDKs
// report the same at every login, and each write of an identity makes every controller drop the sessions it keeps.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WriteEvent } from '../../src/controller/store/repository.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const kind of storesUnderTest()) {
  describe(`a login reporting envInfo and sdkInfo (${kind})`, () => {
    let t: TestApp;
    const heard: WriteEvent[] = [];
    before(async () => {
      t = await createTestApp(kind);
      t.app.runtime.store.onWrite((event) => heard.push(event));
    });
    after(() => t.close());

    const loginWith = async (info: Record<string, unknown>) => {
      heard.length = 0;
      const res = await t.anonymous.request('POST', '/authenticate', {
        query: 'method=password',
        json: { username: 'conformance-user', password: 'User-password-1', ...info },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return heard.filter((e) => e.resource === 'identity');
    };
    const sdk = { sdkInfo: { type: 'ziti-sdk-golang', version: 'v1.1.0' }, envInfo: { os: 'linux', arch: 'amd64' } };

    it('writes the identity when what it reports is new, and not when it reports the same again', async () => {
      assert.ok((await loginWith(sdk)).length > 0, 'the first report is written');
      assert.deepEqual(await loginWith(sdk), [], 'the same report again writes nothing');
      const upgraded = await loginWith({ ...sdk, sdkInfo: { ...sdk.sdkInfo, version: 'v1.2.0' } });
      // Told as made and again once committed: each time only what changed.
      assert.ok(upgraded.length > 0, 'the changed report is written');
      for (const event of upgraded) assert.deepEqual(event.fields, ['sdkInfo'], 'only what changed');
      const list = await t.admin.request('GET', '/identities', { query: 'filter=name%3D%22conformance-user%22' });
      assert.deepEqual(list.body.data[0].sdkInfo, { ...sdk.sdkInfo, version: 'v1.2.0' });
      assert.deepEqual(list.body.data[0].envInfo, sdk.envInfo);
    });
  });
}
