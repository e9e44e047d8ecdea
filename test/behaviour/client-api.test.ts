// The client API as SDKs and tunnelers use it beyond sessions: posture responses and their evaluation for every
// kind of check (postureQueries with timeouts, INVALID_POSTURE, management posture data and failed requests), the
// service update check moving when, and only when, what an identity sees changes, a service's edge routers with the
// optional session-token header, its terminators, the protocols, and the per-client request budget (429). Every
// listed status code of these operations is provoked; every answer is checked against OpenZiti's Swagger.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createController } from '../../src/controller/index.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { recordMfaPassed } from '../../src/controller/model/posture/access.js';
import { POSTURE_ENTRIES_KEPT } from '../../src/controller/client-state.js';
import { TEST_PASSWORD_COST, sharedTestPki } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { hasOperation, validateResponse } from '../helpers/spec.js';

const CLIENT = '/edge/client/v1';

type Res = { status: number; body: any; headers: Record<string, unknown> };
type Caller = {
  request(
    method: string,
    path: string,
    opts?: { json?: unknown; query?: string; headers?: Record<string, string> },
  ): Promise<Res>;
};

/** A client API caller with a token (or none), every answer checked against the Swagger. */
function caller(app: TestApp['app'], token?: string): Caller {
  return {
    async request(method, path, opts = {}) {
      const res = await app.inject({
        method,
        url: `${CLIENT}${path}${opts.query ? `?${opts.query}` : ''}`,
        headers: {
          ...(token ? { 'zt-session': token } : {}),
          ...(opts.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        payload: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      });
      const body = res.body ? JSON.parse(res.body) : undefined;
      if (hasOperation('client', method, path)) validateResponse('client', method, path, res.statusCode, body);
      return { status: res.statusCode, body, headers: res.headers };
    },
  };
}

function expectStatus(res: { status: number; body: any }, status: number, code?: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  if (code) assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  return res.body;
}

for (const store of storesUnderTest()) {
  describe(`client API: posture, service updates, service routers and terminators (${store})`, () => {
    let t: TestApp;
    let now: Date;

    async function create(path: string, json: Record<string, unknown>): Promise<string> {
      return expectStatus(await t.admin.request('POST', path, { json }), 201).data.id as string;
    }

    /** A new identity logged in with a password: its id, API session id and client API caller. */
    async function identity(name: string, roleAttributes: string[] = [name]) {
      const id = await create('/identities', { name, type: 'User', isAdmin: false, roleAttributes });
      await create('/authenticators', { method: 'updb', identityId: id, username: name, password: 'Pass-word-1' });
      const login = expectStatus(
        await caller(t.app).request('POST', '/authenticate', {
          query: 'method=password',
          json: { username: name, password: 'Pass-word-1' },
        }),
        200,
      );
      return {
        id,
        apiSessionId: login.data.id as string,
        token: login.data.token as string,
        client: caller(t.app, login.data.token),
      };
    }

    /** An identity, a routed service and a Dial policy requiring one posture check (by attribute `name`). */
    async function guarded(name: string, check: Record<string, unknown>) {
      const who = await identity(`${name}-identity`, [name]);
      const checkId = await create('/posture-checks', { name: `${name}-check`, roleAttributes: [name], ...check });
      const serviceId = await create('/services', {
        name: `${name}-service`,
        roleAttributes: [name, 'routed'],
        encryptionRequired: true,
      });
      const policyId = await create('/service-policies', {
        name: `${name}-dial`,
        type: 'Dial',
        semantic: 'AllOf',
        identityRoles: [`#${name}`],
        serviceRoles: [`#${name}`],
        postureCheckRoles: [`#${name}`],
      });
      return { ...who, checkId, serviceId, policyId };
    }

    type World = Awaited<ReturnType<typeof guarded>>;

    /** The service's posture query for the check, as the client lists services. */
    async function query(w: World) {
      const list = expectStatus(
        await w.client.request('GET', '/services', { query: `filter=${encodeURIComponent(`id="${w.serviceId}"`)}` }),
        200,
      );
      const [policy] = list.data[0].postureQueries;
      assert.equal(policy.policyId, w.policyId);
      assert.equal(policy.policyType, 'Dial');
      const q = policy.postureQueries.find((x: { id: string }) => x.id === w.checkId);
      assert.ok(q, JSON.stringify(policy));
      assert.equal(policy.isPassing, q.isPassing, 'one check: the policy passes as it does');
      return q;
    }

    /** A fresh admin session on the client API (the shared admin helper speaks to the management API). */
    async function adminToken(): Promise<string> {
      const id = await create('/identities', {
        name: `client-admin-${randomBytes(3).toString('hex')}`,
        type: 'User',
        isAdmin: true,
      });
      const name = `admin-${id}`;
      await create('/authenticators', { method: 'updb', identityId: id, username: name, password: 'Pass-word-1' });
      return expectStatus(
        await caller(t.app).request('POST', '/authenticate', {
          query: 'method=password',
          json: { username: name, password: 'Pass-word-1' },
        }),
        200,
      ).data.token;
    }

    const session = (w: World) =>
      w.client.request('POST', '/sessions', { json: { serviceId: w.serviceId, type: 'Dial' } });

    async function expectPassing(w: World, passing: boolean) {
      assert.equal((await query(w)).isPassing, passing);
      const res = await session(w);
      if (passing) expectStatus(res, 201);
      else {
        expectStatus(res, 409, 'INVALID_POSTURE');
        assert.deepEqual(
          res.body.error.cause.data[w.policyId].map((c: { id: string; isPassing: boolean }) => [c.id, c.isPassing]),
          [[w.checkId, false]],
        );
      }
    }

    const respond = (w: World, json: Record<string, unknown>) =>
      w.client.request('POST', '/posture-response', { json: { id: w.checkId, ...json } });

    before(async () => {
      t = await createTestApp(store);
      // After the controller's start (every stamp starts there), whole seconds.
      // (Jumps stay under the API session timeout, 30 minutes in all: the test's sessions must live through them.)
      now = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
      t.app.runtime.clock = () => now;
      await create('/edge-routers', { name: 'er-client', roleAttributes: ['public'] });
      await create('/edge-router-policies', {
        name: 'all-public',
        semantic: 'AnyOf',
        identityRoles: ['#all'],
        edgeRouterRoles: ['#public'],
      });
      await create('/service-edge-router-policies', {
        name: 'routed',
        semantic: 'AnyOf',
        serviceRoles: ['#routed'],
        edgeRouterRoles: ['#public'],
      });
    });
    after(async () => t?.close());

    describe('posture responses', () => {
      it('refuses a caller without a session (401) and non-response bodies (400, naming the field)', async () => {
        const w = await guarded('refusals', { typeId: 'DOMAIN', domains: ['corp'] });
        expectStatus(
          await caller(t.app).request('POST', '/posture-response', {
            json: { id: w.checkId, typeId: 'DOMAIN', domain: 'corp' },
          }),
          401,
          'UNAUTHORIZED',
        );
        expectStatus(
          await caller(t.app, 'not-a-token').request('POST', '/posture-response-bulk', { json: [] }),
          401,
          'UNAUTHORIZED',
        );
        const cases: Array<[string, unknown, string]> = [
          ['/posture-response', { typeId: 'DOMAIN', domain: 'corp' }, 'id'],
          ['/posture-response', { id: w.checkId, typeId: 'SHOE_SIZE' }, 'typeId'],
          ['/posture-response', { id: w.checkId, typeId: 'DOMAIN' }, 'domain'],
          ['/posture-response', { id: w.checkId, typeId: 'OS', type: 'Windows' }, 'version'],
          ['/posture-response', { id: w.checkId, typeId: 'MAC', macAddresses: 'aa' }, 'macAddresses'],
          ['/posture-response', { id: w.checkId, typeId: 'MFA' }, 'typeId'],
          ['/posture-response-bulk', { id: w.checkId, typeId: 'DOMAIN', domain: 'corp' }, ''],
          [
            '/posture-response-bulk',
            [
              { id: w.checkId, typeId: 'DOMAIN', domain: 'corp' },
              { id: w.checkId, typeId: 'PROCESS' },
            ],
            '[1].path',
          ],
        ];
        for (const [path, json, field] of cases) {
          const body = expectStatus(await w.client.request('POST', path, { json }), 400, 'COULD_NOT_VALIDATE');
          if (field)
            assert.ok(
              String(body.error.cause.field).endsWith(field),
              `${JSON.stringify(json)}: ${JSON.stringify(body.error.cause)}`,
            );
        }
        // A refused bulk applies nothing, not even its valid first item.
        await expectPassing(w, false);
        assert.deepEqual(expectStatus(await respond(w, { typeId: 'DOMAIN', domain: 'CORP' }), 201).data, {
          services: [],
        });
        await expectPassing(w, true);
      });

      it('OS: type and a version in one of the ranges', async () => {
        const w = await guarded('os', {
          typeId: 'OS',
          operatingSystems: [
            { type: 'Windows', versions: ['>=10.0.19041'] },
            { type: 'Linux', versions: [] },
          ],
        });
        await expectPassing(w, false);
        const q = await query(w);
        assert.deepEqual([q.queryType, q.timeout, q.timeoutRemaining], ['OS', -1, -1]);
        expectStatus(await respond(w, { typeId: 'OS', type: 'Windows', version: '10.0.17763', build: '17763' }), 201);
        await expectPassing(w, false);
        expectStatus(await respond(w, { typeId: 'OS', type: 'windows', version: '10.0.22621', build: '22621' }), 201);
        await expectPassing(w, true);
        expectStatus(await respond(w, { typeId: 'OS', type: 'macOS', version: '14.0.0' }), 201);
        await expectPassing(w, false);
        expectStatus(await respond(w, { typeId: 'OS', type: 'Linux', version: 'anything' }), 201);
        await expectPassing(w, true);
      });

      it('DOMAIN and MAC: one of the listed values (case and separators do not matter for MAC)', async () => {
        const d = await guarded('domain', { typeId: 'DOMAIN', domains: ['corp.example'] });
        expectStatus(await respond(d, { typeId: 'DOMAIN', domain: 'home' }), 201);
        await expectPassing(d, false);
        expectStatus(await respond(d, { typeId: 'DOMAIN', domain: 'Corp.Example' }), 201);
        await expectPassing(d, true);
        const m = await guarded('mac', { typeId: 'MAC', macAddresses: ['00:11:22:AA:BB:CC'] });
        expectStatus(
          await m.client.request('POST', '/posture-response-bulk', {
            json: [{ id: m.checkId, typeId: 'MAC', macAddresses: ['de:ad:be:ef:00:01'] }],
          }),
          200,
        );
        await expectPassing(m, false);
        expectStatus(
          await respond(m, { typeId: 'MAC', macAddresses: ['de:ad:be:ef:00:01', '00-11-22-aa-bb-cc'] }),
          201,
        );
        await expectPassing(m, true);
      });

      it('PROCESS: running, with a listed hash and the signer; PROCESS_MULTI: AllOf by path', async () => {
        const p = await guarded('process', {
          typeId: 'PROCESS',
          process: { osType: 'Linux', path: '/usr/bin/agent', hashes: ['ABCDEF'], signerFingerprint: 'F00D' },
        });
        const q = await query(p);
        assert.deepEqual(q.process, { osType: 'Linux', path: '/usr/bin/agent' });
        const report = {
          typeId: 'PROCESS',
          path: '/usr/bin/agent',
          isRunning: true,
          hash: 'abcdef',
          signerFingerprints: ['f0:0d'],
        };
        expectStatus(await respond(p, { ...report, isRunning: false }), 201);
        await expectPassing(p, false);
        expectStatus(await respond(p, { ...report, hash: '123456' }), 201);
        await expectPassing(p, false);
        expectStatus(await respond(p, { ...report, signerFingerprints: ['beef'] }), 201);
        await expectPassing(p, false);
        expectStatus(await respond(p, report), 201);
        await expectPassing(p, true);

        const m = await guarded('multi', {
          typeId: 'PROCESS_MULTI',
          semantic: 'AllOf',
          processes: [
            { osType: 'Linux', path: '/a' },
            { osType: 'Linux', path: '/b', hashes: ['aa'] },
          ],
        });
        assert.deepEqual((await query(m)).processes, [
          { osType: 'Linux', path: '/a' },
          { osType: 'Linux', path: '/b' },
        ]);
        expectStatus(await respond(m, { typeId: 'PROCESS_MULTI', path: '/a', isRunning: true }), 201);
        await expectPassing(m, false);
        expectStatus(await respond(m, { typeId: 'PROCESS_MULTI', path: '/b', isRunning: true, hash: 'AA' }), 201);
        await expectPassing(m, true);
        await t.admin.request('PATCH', `/posture-checks/${m.checkId}`, { json: { semantic: 'AnyOf' } });
        expectStatus(await respond(m, { typeId: 'PROCESS_MULTI', path: '/b', isRunning: false }), 201);
        await expectPassing(m, true);
      });

      it('MFA: passes after MFA, counts down its timeout, then fails; a wake gives 5 min to answer again', async () => {
        const w = await guarded('mfa', { typeId: 'MFA', timeoutSeconds: 600, promptOnWake: true });
        let q = await query(w);
        assert.deepEqual([q.isPassing, q.timeout, q.timeoutRemaining, q.promptOnWake], [false, 600, 0, true]);
        await expectPassing(w, false);
        recordMfaPassed(t.app.runtime, w.id, w.apiSessionId, now);
        now = new Date(now.getTime() + 120_000);
        q = await query(w);
        assert.deepEqual([q.isPassing, q.timeoutRemaining], [true, 480]);
        await expectPassing(w, true);

        // Woken: the services behind checks that prompt on wake are listed with the grace period left.
        const woke = expectStatus(await respond(w, { typeId: 'ENDPOINT_STATE', woken: true }), 201);
        assert.deepEqual(woke.data.services, [
          { id: w.serviceId, name: 'mfa-service', postureQueryType: 'MFA', timeout: 600, timeoutRemaining: 300 },
        ]);
        q = await query(w);
        assert.deepEqual([q.isPassing, q.timeoutRemaining], [true, 300]);
        // The admin's view of the API session: passed on wake while the grace period runs, not once it ran out.
        const mfaData = async () =>
          expectStatus(await t.admin.request('GET', `/identities/${w.id}/posture-data`), 200).data
            .apiSessionPostureData[w.apiSessionId].mfa;
        let mfa = await mfaData();
        assert.deepEqual([mfa.passedMfa, mfa.passedOnWake, mfa.passedOnUnlock], [true, true, true]);
        now = new Date(now.getTime() + 301_000);
        q = await query(w);
        assert.deepEqual([q.isPassing, q.timeoutRemaining], [false, 0]);
        mfa = await mfaData();
        assert.deepEqual([mfa.passedMfa, mfa.passedOnWake, mfa.passedOnUnlock], [true, false, true]);
        await expectPassing(w, false);
        // MFA again: passing until the timeout runs out.
        recordMfaPassed(t.app.runtime, w.id, w.apiSessionId, now);
        await expectPassing(w, true);
        now = new Date(now.getTime() + 601_000);
        await expectPassing(w, false);
        // MFA is per API session: another login of the same identity has not passed it.
        const other = await caller(t.app).request('POST', '/authenticate', {
          query: 'method=password',
          json: { username: 'mfa-identity', password: 'Pass-word-1' },
        });
        const second = caller(t.app, other.body.data.token);
        recordMfaPassed(t.app.runtime, w.id, w.apiSessionId, now);
        expectStatus(
          await second.request('POST', '/sessions', { json: { serviceId: w.serviceId } }),
          409,
          'INVALID_POSTURE',
        );
        expectStatus(await session(w), 201);
      });

      it('a wake lists each service behind a prompting MFA check once, with the shortest timeout on it', async () => {
        const w = await guarded('wake2', { typeId: 'MFA', timeoutSeconds: 900, promptOnWake: true });
        // A second policy guards the same service with a shorter check; a third guards another service with the first.
        const short = await create('/posture-checks', {
          name: 'wake2-short',
          roleAttributes: ['wake2-short'],
          typeId: 'MFA',
          timeoutSeconds: 700,
          promptOnWake: true,
        });
        await create('/service-policies', {
          name: 'wake2-dial-short',
          type: 'Dial',
          semantic: 'AllOf',
          identityRoles: ['#wake2'],
          serviceRoles: ['#wake2'],
          postureCheckRoles: [`@${short}`],
        });
        const other = await create('/services', { name: 'wake2-x-service', encryptionRequired: true });
        await create('/service-policies', {
          name: 'wake2-dial-x',
          type: 'Dial',
          semantic: 'AllOf',
          identityRoles: ['#wake2'],
          serviceRoles: [`@${other}`],
          postureCheckRoles: [`@${w.checkId}`],
        });
        recordMfaPassed(t.app.runtime, w.id, w.apiSessionId, now);
        const woke = expectStatus(await respond(w, { typeId: 'ENDPOINT_STATE', woken: true }), 201);
        assert.deepEqual(woke.data.services, [
          { id: w.serviceId, name: 'wake2-service', postureQueryType: 'MFA', timeout: 700, timeoutRemaining: 300 },
          { id: other, name: 'wake2-x-service', postureQueryType: 'MFA', timeout: 900, timeoutRemaining: 300 },
        ]);
      });

      it('sessions end on failing posture: a response, changed check, stricter policy, expired timeout', async () => {
        const w = await guarded('ending', { typeId: 'DOMAIN', domains: ['corp'] });
        const exists = async (id: string) => (await t.admin.request('GET', `/sessions/${id}`)).status === 200;
        const live = async () => {
          expectStatus(await respond(w, { typeId: 'DOMAIN', domain: 'corp' }), 201);
          return expectStatus(await session(w), 201).data.id as string;
        };
        let id = await live();
        expectStatus(await respond(w, { typeId: 'DOMAIN', domain: 'corp' }), 201);
        assert.ok(await exists(id), 'a response that changes nothing ends nothing');
        expectStatus(await respond(w, { typeId: 'DOMAIN', domain: 'home' }), 201);
        assert.equal(await exists(id), false, 'a response failing the check');
        id = await live();
        expectStatus(
          await t.admin.request('PATCH', `/posture-checks/${w.checkId}`, { json: { domains: ['lab'] } }),
          200,
        );
        assert.equal(await exists(id), false, 'the check changed');
        expectStatus(
          await t.admin.request('PATCH', `/posture-checks/${w.checkId}`, { json: { domains: ['corp'] } }),
          200,
        );
        id = await live();
        const mfa = await create('/posture-checks', {
          name: 'ending-mfa',
          typeId: 'MFA',
          timeoutSeconds: 60,
          roleAttributes: ['ending-mfa'],
        });
        expectStatus(
          await t.admin.request('PATCH', `/service-policies/${w.policyId}`, {
            json: { semantic: 'AnyOf', postureCheckRoles: ['#ending', '#ending-mfa'] },
          }),
          200,
        );
        assert.equal(await exists(id), false, 'the policy requires a check it does not pass');
        recordMfaPassed(t.app.runtime, w.id, w.apiSessionId, now);
        id = expectStatus(await session(w), 201).data.id;
        const { enforcePostureTimeouts } = await import('../../src/controller/model/posture/sessions.js');
        assert.equal(await enforcePostureTimeouts(t.app.runtime, new Date(now.getTime() + 30_000)), 0);
        assert.ok(await exists(id), 'within the MFA timeout');
        assert.equal(await enforcePostureTimeouts(t.app.runtime, new Date(now.getTime() + 61_000)), 1);
        assert.equal(await exists(id), false, 'the MFA timeout ran out');
        await t.admin.request('DELETE', `/posture-checks/${mfa}`);
      });

      it('MFA: an API session that completed MFA at authentication passes, counting from then', async () => {
        const w = await guarded('mfa-auth', { typeId: 'MFA', timeoutSeconds: 300 });
        await expectPassing(w, false);
        // What MFA authentication does to the API session (the MFA flow itself is tested with it).
        await t.app.runtime.writes.update('api-session', w.apiSessionId, { isMfaComplete: true }, now.toISOString());
        now = new Date(now.getTime() + 100_000);
        const q = await query(w);
        assert.deepEqual([q.isPassing, q.timeoutRemaining], [true, 200]);
        await expectPassing(w, true);
        const data = expectStatus(await t.admin.request('GET', `/identities/${w.id}/posture-data`), 200).data;
        assert.equal(data.apiSessionPostureData[w.apiSessionId].mfa.passedMfa, true);
      });

      it('management: posture data shows what was reported, failed service requests what posture refused', async () => {
        const w = await guarded('mgmt', { typeId: 'DOMAIN', domains: ['corp'] });
        expectStatus(await session(w), 409, 'INVALID_POSTURE');
        expectStatus(
          await w.client.request('POST', '/posture-response-bulk', {
            json: [
              { id: w.checkId, typeId: 'DOMAIN', domain: 'home' },
              { id: 'os-query', typeId: 'OS', type: 'Linux', version: '6.1.0', build: 'x' },
              { id: 'mac-query', typeId: 'MAC', macAddresses: ['AA:BB:CC:DD:EE:FF'] },
              { id: 'proc-query', typeId: 'PROCESS', path: '/bin/x', isRunning: true, hash: 'AB' },
              { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true },
            ],
          }),
          200,
        );
        const data = expectStatus(await t.admin.request('GET', `/identities/${w.id}/posture-data`), 200).data;
        assert.equal(data.domain.domain, 'home');
        assert.equal(data.domain.postureCheckId, w.checkId);
        assert.deepEqual([data.os.type, data.os.version, data.os.build], ['Linux', '6.1.0', 'x']);
        assert.deepEqual(data.mac.addresses, ['aabbccddeeff']);
        assert.deepEqual(
          data.processes.map((p: any) => [p.postureCheckId, p.isRunning, p.binaryHash]),
          [['proc-query', true, 'ab']],
        );
        assert.equal(data.apiSessionPostureData[w.apiSessionId].mfa.passedMfa, false);
        assert.equal(data.apiSessionPostureData[w.apiSessionId].endpointState.unlockedAt, now.toISOString());
        const failed = expectStatus(
          await t.admin.request('GET', `/identities/${w.id}/failed-service-requests`),
          200,
        ).data;
        assert.equal(failed.length, 1);
        assert.deepEqual(
          [failed[0].serviceId, failed[0].serviceName, failed[0].sessionType, failed[0].apiSessionId],
          [w.serviceId, 'mgmt-service', 'Dial', w.apiSessionId],
        );
        assert.deepEqual(
          failed[0].policyFailures.map((p: any) => [
            p.policyId,
            p.policyName,
            p.checks.map((c: any) => [c.postureCheckId, c.postureCheckType]),
          ]),
          [[w.policyId, 'mgmt-dial', [[w.checkId, 'DOMAIN']]]],
        );
        expectStatus(await t.admin.request('GET', '/identities/nobody/posture-data'), 404);
      });

      it('posture data keeps the latest 64 process reports, whatever checks and paths a client makes up', async () => {
        const w = await guarded('bounded', { typeId: 'DOMAIN', domains: ['corp'] });
        const report = (n: number) => ({ id: `made-up-${n}`, typeId: 'PROCESS', path: `/opt/p${n}`, isRunning: true });
        for (const from of [0, 256])
          expectStatus(
            await w.client.request('POST', '/posture-response-bulk', {
              json: Array.from({ length: 256 }, (_, i) => report(from + i)),
            }),
            200,
          );
        const data = expectStatus(await t.admin.request('GET', `/identities/${w.id}/posture-data`), 200).data;
        const ids = data.processes.map((p: { postureCheckId: string }) => p.postureCheckId);
        assert.equal(ids.length, POSTURE_ENTRIES_KEPT);
        const latest = Array.from({ length: POSTURE_ENTRIES_KEPT }, (_, i) => 512 - POSTURE_ENTRIES_KEPT + i);
        assert.deepEqual(ids.sort(), latest.map((n) => `made-up-${n}`).sort());
        const kept = await t.app.runtime.posture.read(w.id);
        assert.deepEqual(
          [...(kept?.processesByPath.keys() ?? [])],
          latest.map((n) => `/opt/p${n}`),
          'by path too',
        );
      });
    });

    describe('service update check', () => {
      it('moves only when something the identity sees changes', async () => {
        const w = await guarded('updates', { typeId: 'DOMAIN', domains: ['corp'] });
        const bystander = await identity('bystander', ['elsewhere']);
        const stamp = async (c: Caller = w.client) =>
          expectStatus(await c.request('GET', '/current-api-session/service-updates'), 200).data.lastChangeAt as string;
        expectStatus(await caller(t.app).request('GET', '/current-api-session/service-updates'), 401, 'UNAUTHORIZED');
        let last = await stamp();
        const bystanderLast = await stamp(bystander.client);
        const step = async (what: string, change: () => Promise<unknown>, moves: boolean) => {
          now = new Date(now.getTime() + 1000);
          await change();
          const next = await stamp();
          if (moves) assert.equal(next, now.toISOString(), `${what} moves it`);
          else assert.equal(next, last, `${what} does not move it`);
          assert.equal(await stamp(bystander.client), bystanderLast, `${what} does not concern the bystander`);
          last = next;
        };
        await step('reading services', () => w.client.request('GET', '/services'), false);
        await step(
          'a service it cannot see',
          () => create('/services', { name: 'unseen', roleAttributes: ['elsewhere-svc'], encryptionRequired: false }),
          false,
        );
        await step(
          'its service renamed',
          () => t.admin.request('PATCH', `/services/${w.serviceId}`, { json: { name: 'updates-service-2' } }),
          true,
        );
        await step(
          'its policy changed',
          () => t.admin.request('PATCH', `/service-policies/${w.policyId}`, { json: { semantic: 'AnyOf' } }),
          true,
        );
        await step(
          'its policy tagged',
          () => t.admin.request('PATCH', `/service-policies/${w.policyId}`, { json: { tags: { note: 'x' } } }),
          false,
        );
        await step(
          'its attributes',
          () => t.admin.request('PATCH', `/identities/${w.id}`, { json: { roleAttributes: ['updates', 'more'] } }),
          true,
        );
        await step(
          'its posture check changed',
          () => t.admin.request('PATCH', `/posture-checks/${w.checkId}`, { json: { domains: ['corp', 'lab'] } }),
          true,
        );
        await step('a response that changes no verdict', () => respond(w, { typeId: 'DOMAIN', domain: 'home' }), false);
        await step('a response that makes its check pass', () => respond(w, { typeId: 'DOMAIN', domain: 'lab' }), true);
        const configType = await create('/config-types', { name: 'updates-type', schema: {} });
        const configId = await create('/configs', { name: 'updates-config', configTypeId: configType, data: { a: 1 } });
        await step(
          'a config added to its service',
          () => t.admin.request('PATCH', `/services/${w.serviceId}`, { json: { configs: [configId] } }),
          true,
        );
        await step(
          'that config changed',
          () => t.admin.request('PATCH', `/configs/${configId}`, { json: { data: { a: 2 } } }),
          true,
        );
        await step(
          'a policy for it created',
          () =>
            create('/service-policies', {
              name: 'updates-bind',
              type: 'Bind',
              semantic: 'AnyOf',
              identityRoles: [`@${w.id}`],
              serviceRoles: ['#updates'],
            }),
          true,
        );
        now = new Date(now.getTime() + 1000);
        await create('/service-policies', {
          name: 'everyone',
          type: 'Dial',
          semantic: 'AnyOf',
          identityRoles: ['#all'],
          serviceRoles: ['#nothing'],
        });
        assert.equal(await stamp(bystander.client), now.toISOString(), 'a policy over #all concerns everyone');
        assert.equal(await stamp(), now.toISOString());
        // A new API session has not listed anything yet: its stamp is never before it began, as in OpenZiti.
        now = new Date(now.getTime() + 1000);
        const again = await caller(t.app).request('POST', '/authenticate', {
          query: 'method=password',
          json: { username: 'updates-identity', password: 'Pass-word-1' },
        });
        assert.equal(await stamp(caller(t.app, again.body.data.token)), now.toISOString());
        assert.equal(await stamp(), new Date(now.getTime() - 1000).toISOString(), 'the older session keeps its stamp');
        // A policy over #all services grants them all: each lists it among its posture queries' policies.
        const all = await create('/service-policies', {
          name: 'updates-all',
          type: 'Bind',
          semantic: 'AnyOf',
          identityRoles: [`@${w.id}`],
          serviceRoles: ['#all'],
        });
        const listed = expectStatus(await w.client.request('GET', '/services'), 200).data;
        assert.ok(listed.length > 1);
        for (const svc of listed)
          assert.ok(
            svc.postureQueries.some((p: { policyId: string }) => p.policyId === all),
            svc.name,
          );
        await t.admin.request('DELETE', `/service-policies/${all}`);
      });
    });

    describe('service edge routers, terminators, protocols', () => {
      it('service edge routers: 200 if usable, else 404; bad filter 400; 401; any session-token checked', async () => {
        const w = await guarded('routers', { typeId: 'DOMAIN', domains: ['corp'] });
        await t.admin.request('PATCH', `/service-policies/${w.policyId}`, { json: { postureCheckRoles: [] } });
        const list = expectStatus(await w.client.request('GET', `/services/${w.serviceId}/edge-routers`), 200);
        assert.deepEqual(
          list.data.edgeRouters.map((r: { name: string }) => r.name),
          ['er-client'],
        );
        const hidden = await create('/services', {
          name: 'routers-hidden',
          roleAttributes: ['routed'],
          encryptionRequired: true,
        });
        for (const id of [hidden, 'no-such-service']) {
          const res = expectStatus(await w.client.request('GET', `/services/${id}/edge-routers`), 404, 'NOT_FOUND');
          assert.equal(res.error.cause, undefined, 'no cause, as OpenZiti answers this 404');
        }
        expectStatus(
          await w.client.request('GET', `/services/${w.serviceId}/edge-routers`, { query: 'filter=name%3D' }),
          400,
        );
        expectStatus(await caller(t.app).request('GET', `/services/${w.serviceId}/edge-routers`), 401, 'UNAUTHORIZED');

        const created = expectStatus(await session(w), 201).data;
        const withToken = (token: string) =>
          w.client.request('GET', `/services/${w.serviceId}/edge-routers`, { headers: { 'session-token': token } });
        expectStatus(await withToken(created.token), 200);
        for (const bad of ['garbage', `${created.token.slice(0, -4)}AAAA`, ''])
          expectStatus(await withToken(bad), 401, 'UNAUTHORIZED');
        // The same identity in another API session may not use it: the token is its API session's.
        const json = { username: 'routers-identity', password: 'Pass-word-1' };
        const login = await caller(t.app).request('POST', '/authenticate', { query: 'method=password', json });
        const secondLogin = expectStatus(login, 200);
        const sameIdentity = caller(t.app, secondLogin.data.token);
        const routers = (headers: Record<string, string> = {}) =>
          sameIdentity.request('GET', `/services/${w.serviceId}/edge-routers`, { headers });
        expectStatus(await routers(), 200);
        expectStatus(await routers({ 'session-token': created.token }), 401, 'UNAUTHORIZED');
        // Another identity's token, and the token of an ended session, are not valid either.
        const other = await guarded('routers-other', { typeId: 'DOMAIN', domains: ['corp'] });
        await create('/service-policies', {
          name: 'routers-other-too',
          type: 'Dial',
          semantic: 'AnyOf',
          identityRoles: [`@${other.id}`],
          serviceRoles: [`@${w.serviceId}`],
        });
        expectStatus(await other.client.request('GET', `/services/${w.serviceId}/edge-routers`), 200);
        expectStatus(
          await other.client.request('GET', `/services/${w.serviceId}/edge-routers`, {
            headers: { 'session-token': created.token },
          }),
          401,
          'UNAUTHORIZED',
        );
        expectStatus(await w.client.request('DELETE', `/sessions/${created.id}`), 200);
        expectStatus(await withToken(created.token), 401, 'UNAUTHORIZED');
      });

      it('service terminators: the usable service’s, without addresses; 404 for others; 400; 401', async () => {
        const w = await guarded('terms', { typeId: 'DOMAIN', domains: ['corp'] });
        const routerId = (await t.admin.request('GET', '/edge-routers', { query: 'filter=name%3D%22er-client%22' }))
          .body.data[0].id;
        await create('/terminators', {
          service: w.serviceId,
          router: routerId,
          address: 'tcp:10.0.0.1:80',
          binding: 'transport',
        });
        const list = expectStatus(await w.client.request('GET', `/services/${w.serviceId}/terminators`), 200);
        assert.equal(list.data.length, 1);
        assert.deepEqual(
          [list.data[0].serviceId, list.data[0].routerId, list.data[0].service.name],
          [w.serviceId, routerId, 'terms-service'],
        );
        assert.equal(list.data[0].address, undefined, 'the client never sees where a service is hosted');
        const hidden = await create('/services', { name: 'terms-hidden', encryptionRequired: true });
        await create('/terminators', {
          service: hidden,
          router: routerId,
          address: 'tcp:10.0.0.2:80',
          binding: 'transport',
        });
        // As OpenZiti's listClientTerminators, which reads the service for the identity first.
        for (const id of [hidden, 'no-such-service']) {
          const res = expectStatus(await w.client.request('GET', `/services/${id}/terminators`), 404, 'NOT_FOUND');
          assert.equal(res.error.cause, undefined, 'no cause, as OpenZiti answers this 404');
        }
        expectStatus(
          await w.client.request('GET', `/services/${w.serviceId}/terminators`, { query: 'filter=%3D%3D' }),
          400,
        );
        expectStatus(await caller(t.app).request('GET', `/services/${w.serviceId}/terminators`), 401, 'UNAUTHORIZED');
      });

      it('client API services: admins replace, patch and delete them (200, 400, 404); others get 401', async () => {
        const w = await guarded('client-admin', { typeId: 'DOMAIN', domains: ['corp'] });
        const adminClient = caller(t.app, await adminToken());
        expectStatus(
          await w.client.request('PATCH', `/services/${w.serviceId}`, { json: { name: 'renamed' } }),
          401,
          'UNAUTHORIZED',
        );
        expectStatus(
          await adminClient.request('PATCH', `/services/${w.serviceId}`, { json: { name: 'client-admin-service-2' } }),
          200,
        );
        expectStatus(
          await adminClient.request('PATCH', `/services/${w.serviceId}`, { json: { name: 7 } }),
          400,
          'COULD_NOT_VALIDATE',
        );
        expectStatus(
          await adminClient.request('PUT', `/services/${w.serviceId}`, {
            json: { name: 'client-admin-service-3', encryptionRequired: true },
          }),
          200,
        );
        expectStatus(
          await adminClient.request('PUT', '/services/no-such-service', {
            json: { name: 'x', encryptionRequired: true },
          }),
          404,
          'NOT_FOUND',
        );
        assert.equal(
          expectStatus(await t.admin.request('GET', `/services/${w.serviceId}`), 200).data.name,
          'client-admin-service-3',
        );
        expectStatus(await w.client.request('DELETE', `/services/${w.serviceId}`), 401, 'UNAUTHORIZED');
        expectStatus(await adminClient.request('DELETE', `/services/${w.serviceId}`), 200);
        expectStatus(await adminClient.request('DELETE', `/services/${w.serviceId}`), 404, 'NOT_FOUND');
      });

      it('protocols: the address clients reach the controller on, without a session', async () => {
        const body = expectStatus(await caller(t.app).request('GET', '/protocols'), 200);
        assert.deepEqual(body.data, { https: { address: '127.0.0.1:1' } });
      });
    });
  });
}

describe('client API request budget', () => {
  let app: Awaited<ReturnType<typeof createController>>;
  let adminToken: string;
  const adminPassword = `Admin-${randomBytes(6).toString('hex')}`;
  before(async () => {
    app = await createController({
      dataDir: '/nonexistent',
      publicUrl: 'https://127.0.0.1:1',
      pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] }),
      store: { sqlite: ':memory:' },
      adminPassword,
      passwordCost: TEST_PASSWORD_COST,
      clientRateLimit: { burst: 3, perSecond: 0.01 },
    });
    adminToken = (
      await caller(app).request('POST', '/authenticate', {
        query: 'method=password',
        json: { username: 'admin', password: adminPassword },
      })
    ).body.data.token;
  });
  after(async () => app?.close());

  it('answers 429 RATE_LIMITED with Retry-After once a session spent its burst, to that session only', async () => {
    const admin = caller(app, adminToken);
    for (let i = 0; i < 3; i++) expectStatus(await admin.request('GET', '/services'), 200);
    const refused = await admin.request('GET', '/current-api-session/service-updates');
    expectStatus(refused, 429, 'RATE_LIMITED');
    assert.ok(Number(refused.headers['retry-after']) >= 1, JSON.stringify(refused.headers));
    for (const path of ['/services', '/sessions', '/current-identity/edge-routers', '/controllers'])
      expectStatus(await admin.request('GET', path), 429, 'RATE_LIMITED');
    expectStatus(
      await admin.request('POST', '/posture-response', { json: { id: 'x', typeId: 'DOMAIN', domain: 'd' } }),
      429,
      'RATE_LIMITED',
    );
    expectStatus(await admin.request('POST', '/posture-response-bulk', { json: [] }), 429, 'RATE_LIMITED');
    expectStatus(await admin.request('POST', '/sessions', { json: { serviceId: 'x' } }), 429, 'RATE_LIMITED');
    for (const path of ['/services/x', '/services/x/edge-routers', '/services/x/terminators'])
      expectStatus(await admin.request('GET', path), 429, 'RATE_LIMITED');
    expectStatus(await admin.request('PATCH', '/services/x', { json: {} }), 429, 'RATE_LIMITED');
    expectStatus(await admin.request('DELETE', '/sessions/x'), 429, 'RATE_LIMITED');
    // Operations the client API lists no 429 for are never refused.
    expectStatus(await admin.request('GET', '/current-identity'), 200);
    expectStatus(await admin.request('GET', '/version'), 200);
    // Another session has its own budget.
    const login = expectStatus(
      await caller(app).request('POST', '/authenticate', {
        query: 'method=password',
        json: { username: 'admin', password: adminPassword },
      }),
      200,
    );
    expectStatus(await caller(app, login.data.token).request('GET', '/services'), 200);
  });

  it('counts public operations by address, with ten times the budget', async () => {
    const anonymous = caller(app);
    for (let i = 0; i < 30; i++) expectStatus(await anonymous.request('GET', '/protocols'), 200);
    expectStatus(await anonymous.request('GET', '/protocols'), 429, 'RATE_LIMITED');
  });
});
