// What ZAC and other clients read about the controller itself: the controllers list (this one controller, on
// both APIs), /summary with OpenZiti's keys, /version naming the OpenZiti release whose API is implemented, the
// identity form's empty external id, the remaining computed identity fields, and identity tracing. Both stores.
import assert from 'node:assert/strict';
import { X509Certificate, createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summaryKey, OPENZITI_API_RELEASE } from '../../src/controller/routes/meta.js';
import { parseGoDuration } from '../../src/controller/model/traces.js';
import { activeTrace } from '../../src/controller/model/traces.js';
import { createController } from '../../src/controller/index.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { CATALOGUE } from '../../src/resources/index.js';
import { TEST_PASSWORD_COST, sharedTestPki } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { checkResponse } from '../helpers/in-process-specs.js';

describe('summary keys', () => {
  it("are the catalogue's: the declared key, or the camelCase plural", () => {
    assert.equal(summaryKey({ plural: 'service-edge-router-policies' }), 'serviceEdgeRouterPolicies');
    assert.equal(summaryKey({ plural: 'edge-routers', summaryKey: 'routers.edge' }), 'routers.edge');
  });
});

describe('Go durations (traceSpec.duration)', () => {
  it('parses what time.ParseDuration parses, and nothing else', () => {
    assert.equal(parseGoDuration('30s'), 30_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('300ms'), 300);
    assert.equal(parseGoDuration('-2m'), -120_000);
    assert.equal(parseGoDuration('0'), 0);
    for (const bad of ['', '10', 'h', '1x', '1h 30m', 'one hour', '1hh'])
      assert.equal(parseGoDuration(bad), undefined, bad);
  });
});

for (const store of storesUnderTest()) {
  describe(`controller information (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    it('lists this controller on the management API: its certificate, fingerprint, addresses, online', async () => {
      const res = await t.admin.request('GET', '/controllers');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await checkResponse(t, 'management', 'GET', '/controllers', 200, res.body);
      assert.equal(res.body.data.length, 1);
      const [self] = res.body.data;
      const pki = t.app.runtime.pki;
      assert.equal(self.id, pki.trustDomain);
      assert.equal(self.certPem, pki.serverCertPem);
      const cert = new X509Certificate(pki.serverCertPem);
      assert.equal(
        self.fingerprint,
        createHash('sha1').update(cert.raw).digest('hex'),
        'SHA-1 of the DER, lowercase hex, as OpenZiti',
      );
      assert.equal(
        `CN=${self.name}`,
        cert.subject.split('\n').find((l) => l.startsWith('CN=')),
      );
      assert.equal(self.isOnline, true);
      assert.equal(self.ctrlAddress, null, 'no control channel');
      assert.ok(Date.parse(self.lastJoinedAt) <= Date.now());
      assert.deepEqual(self.apiAddresses['edge-management'], [
        { url: 'https://127.0.0.1:1/edge/management/v1', version: 'v1' },
      ]);
      const one = await t.admin.request('GET', `/controllers/${self.id}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.data, self);
      const summary = (await t.admin.request('GET', '/summary')).body.data;
      assert.equal(summary.controllers, 1);
    });

    it('lists it on the client API without control or management addresses; admins only on management', async () => {
      const res = await t.user.request('GET', '/edge/client/v1/controllers');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await checkResponse(t, 'client', 'GET', '/controllers', 200, res.body);
      const [self] = res.body.data;
      assert.equal(self.ctrlAddress, null);
      assert.deepEqual(Object.keys(self.apiAddresses), ['edge-client']);
      assert.equal((await t.user.request('GET', '/controllers')).status, 401);
      assert.equal((await t.anonymous.request('GET', '/edge/client/v1/controllers')).status, 401);
    });

    it("/summary has every catalogue resource's count under OpenZiti's keys, and nothing invented", async () => {
      const res = await t.admin.request('GET', '/summary');
      assert.equal(res.status, 200);
      await checkResponse(t, 'management', 'GET', '/summary', 200, res.body);
      const counts = res.body.data as Record<string, number>;
      for (const def of CATALOGUE)
        assert.equal(typeof counts[summaryKey(def)], 'number', `${def.name} counted as ${summaryKey(def)}`);
      for (const key of [
        'identities',
        'services',
        'configs',
        'servicePolicies',
        'sessions',
        'apiSessions',
        'identityTypes',
      ]) {
        assert.equal(typeof counts[key], 'number', key);
      }
      const keys = new Set(CATALOGUE.map(summaryKey).flatMap((k) => [k, k.split('.')[0]]));
      for (const key of Object.keys(counts)) assert.ok(keys.has(key), `${key} counts a resource the catalogue has`);
      const before = counts.services;
      await t.admin.request('POST', '/services', { json: { name: 'counted', encryptionRequired: true } });
      assert.equal((await t.admin.request('GET', '/summary')).body.data.services, before + 1);
    });

    it('/version names the OpenZiti release whose API it implements, as a semver ZAC can compare', async () => {
      const res = await t.anonymous.request('GET', '/version');
      assert.equal(res.status, 200);
      await checkResponse(t, 'management', 'GET', '/version', 200, res.body);
      const { version, revision } = res.body.data;
      assert.equal(version, `v${OPENZITI_API_RELEASE}`);
      // ZAC: zitiSemver = version.replace("v", ""); its JWT-signer form needs semver.gte(zitiSemver, '1.4.0').
      const [major, minor] = version.replace('v', '').split('.').map(Number);
      assert.ok(major > 1 || (major === 1 && minor >= 4), version);
      assert.equal(revision, `ctl v${t.app.runtime.config.version}`, "ctl's own version is in the revision");
    });

    it('treats an empty external id as none on create, replace and patch (ZAC sends "")', async () => {
      const a = await t.admin.request('POST', '/identities', {
        json: { name: 'zac-a', type: 'User', isAdmin: false, externalId: '' },
      });
      assert.equal(a.status, 201, JSON.stringify(a.body));
      const b = await t.admin.request('POST', '/identities', {
        json: { name: 'zac-b', type: 'User', isAdmin: false, externalId: '' },
      });
      assert.equal(b.status, 201, 'two identities without an external id do not clash');
      const read = async (id: string) => (await t.admin.request('GET', `/identities/${id}`)).body.data.externalId;
      assert.equal(await read(a.body.data.id), null);
      assert.equal(
        (await t.admin.request('PATCH', `/identities/${a.body.data.id}`, { json: { externalId: 'ext-1' } })).status,
        200,
      );
      assert.equal(await read(a.body.data.id), 'ext-1');
      assert.equal(
        (await t.admin.request('PATCH', `/identities/${a.body.data.id}`, { json: { externalId: '' } })).status,
        200,
      );
      assert.equal(await read(a.body.data.id), null, 'clearing the field in the form clears it');
      const replaced = await t.admin.request('PUT', `/identities/${b.body.data.id}`, {
        json: { name: 'zac-b', type: 'User', isAdmin: false, externalId: '' },
      });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      assert.equal(await read(b.body.data.id), null);
      const tooLong = await t.admin.request('PATCH', `/identities/${b.body.data.id}`, {
        json: { externalId: 'x'.repeat(1025) },
      });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.error.cause.field, 'externalId');
    });

    it('serves the computed identity fields it can vouch for', async () => {
      const res = await t.admin.request('GET', '/current-identity');
      const me = res.body.data;
      assert.equal(me.hasApiSession, true, 'the admin is logged in');
      assert.equal(me.hasEdgeRouterConnection, false, 'no edge router holds a connection: there is no data plane');
      assert.equal(me.edgeRouterConnectionStatus, 'offline');
      assert.equal(me.isMfaEnabled, false);
      const fresh = (
        await t.admin.request('POST', '/identities', {
          json: { name: 'never-logged-in', type: 'Device', isAdmin: false },
        })
      ).body.data.id;
      assert.equal((await t.admin.request('GET', `/identities/${fresh}`)).body.data.hasApiSession, false);
    });

    it('records a trace spec and answers as OpenZiti: traceId made up if absent, until = now + duration', async () => {
      const id = (
        await t.admin.request('POST', '/identities', { json: { name: 'traced', type: 'User', isAdmin: false } })
      ).body.data.id;
      const started = Date.now();
      const res = await t.admin.request('PUT', `/identities/${id}/trace`, {
        json: { enabled: true, duration: '10m', channels: ['selectPath'] },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await checkResponse(t, 'management', 'PUT', `/identities/${id}/trace`, 200, res.body);
      const { enabled, traceId, until } = res.body.data;
      assert.equal(enabled, true);
      assert.match(traceId, /^[0-9a-f-]{36}$/);
      const ms = Date.parse(until) - started;
      assert.ok(ms >= 600_000 - 1000 && ms <= 600_000 + 5000, `until is ten minutes on: ${until}`);
      assert.deepEqual(activeTrace(t.app.runtime, id)?.channels, ['selectPath']);

      const all = await t.admin.request('PUT', `/identities/${id}/trace`, {
        json: { enabled: true, duration: '1h', traceId: 'mine', channels: ['all'] },
      });
      assert.equal(all.body.data.traceId, 'mine');
      assert.deepEqual(activeTrace(t.app.runtime, id)?.channels, ['selectPath', 'establishPath']);

      const off = await t.admin.request('PUT', `/identities/${id}/trace`, { json: { enabled: false } });
      assert.equal(off.status, 200);
      assert.deepEqual(off.body.data, { enabled: false });
      assert.equal(activeTrace(t.app.runtime, id), undefined);
    });

    it('refuses a bad trace spec with the field named, and an unknown identity with 404', async () => {
      const id = (
        await t.admin.request('POST', '/identities', { json: { name: 'trace-refused', type: 'User', isAdmin: false } })
      ).body.data.id;
      const cases: Array<[unknown, string]> = [
        [{ enabled: true }, 'duration'],
        [{ enabled: true, duration: 'ten minutes' }, 'duration'],
        [{ enabled: true, duration: '-5m' }, 'duration'],
        [{ enabled: true, duration: '1m', channels: ['nope'] }, 'channels'],
        [{ enabled: 'yes' }, 'enabled'],
        [{ enabled: true, duration: '1m', extra: 1 }, 'extra'],
      ];
      for (const [body, field] of cases) {
        const res = await t.admin.request('PUT', `/identities/${id}/trace`, { json: body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body));
      }
      const noBody = await t.admin.request('PUT', `/identities/${id}/trace`);
      assert.equal(noBody.status, 400, 'the trace spec is a required body');
      assert.equal(activeTrace(t.app.runtime, id), undefined, 'nothing recorded');
      assert.equal(
        (await t.admin.request('PUT', '/identities/nobody/trace', { json: { enabled: false } })).status,
        404,
      );
      assert.equal((await t.user.request('PUT', `/identities/${id}/trace`, { json: { enabled: false } })).status, 401);
    });
  });
}

describe('the controllers list across restarts', () => {
  it('keeps one row for this controller, brought up to date at each start', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'ctl-controllers-'));
    const pki = await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] });
    const adminPassword = `Admin-${randomBytes(6).toString('hex')}`;
    const start = (publicUrl: string) =>
      createController({
        dataDir: dir,
        publicUrl,
        pki,
        store: { sqlite: path.join(dir, 'ctl.db') },
        adminPassword,
        passwordCost: TEST_PASSWORD_COST,
      });
    const list = async (app: Awaited<ReturnType<typeof start>>) => {
      const login = await app.inject({
        method: 'POST',
        url: '/edge/management/v1/authenticate?method=password',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ username: 'admin', password: adminPassword }),
      });
      const res = await app.inject({
        method: 'GET',
        url: '/edge/management/v1/controllers',
        headers: { 'zt-session': login.json().data.token },
      });
      return res.json().data as Array<{
        id: string;
        lastJoinedAt: string;
        apiAddresses: Record<string, Array<{ url: string }>>;
      }>;
    };
    try {
      const first = await start('https://127.0.0.1:1281');
      const before = await list(first);
      await first.close();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await start('https://127.0.0.1:1282');
      const after = await list(second);
      await second.close();
      assert.equal(after.length, 1);
      assert.equal(after[0].id, before[0].id);
      assert.ok(Date.parse(after[0].lastJoinedAt) > Date.parse(before[0].lastJoinedAt), 'the later start');
      assert.equal(
        after[0].apiAddresses['edge-client'][0].url,
        'https://127.0.0.1:1282/edge/client/v1',
        'the new address',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
