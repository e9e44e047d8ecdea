// A GET by id answered from an answer kept since the last write (model/kept-answers.ts) must never be stale: after
// each kind of write that changes what an identity's answer says, the next GET by id answers what its list entry
// answers (a list is always read from the store), byte for byte. Before each write the answer is shown to be kept
// (its GET makes no statement). Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { opensslCa } from '../helpers/openssl.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { code, secretOf } from '../helpers/totp.js';

const CLIENT = '/edge/client/v1';

for (const store of storesUnderTest()) {
  describe(`a kept answer by id is never stale (${store})`, () => {
    let t: TestApp;
    let id = '';
    const password = 'Kept-password-1';
    before(async () => {
      t = await createTestApp(store);
      const json = { name: 'kept', type: 'User', isAdmin: false, enrollment: { ott: true } };
      id = (await t.admin.request('POST', '/identities', { json })).body.data.id;
    });
    after(async () => t?.close());

    const ok = async (reply: Promise<{ status: number; body: any }>, status = 200) => {
      const { status: got, body } = await reply;
      assert.equal(got, status, JSON.stringify(body));
      return body;
    };

    /** Shows the identity's answer kept: asked for until a GET makes no statement (the fewest of a few). */
    async function assertKept(): Promise<void> {
      const counts: number[] = [];
      for (let i = 0; i < 5 && !counts.includes(0); i++) {
        const before = t.app.runtime.store.statementsRun;
        await ok(t.admin.request('GET', `/identities/${id}`));
        counts.push(t.app.runtime.store.statementsRun - before);
      }
      assert.ok(counts.includes(0), `statements per GET: ${counts.join(', ')}`);
    }

    /** The identity's answer by id after `write`, checked against its list entry. */
    async function afterWrite(write: () => Promise<unknown>): Promise<Record<string, any>> {
      await assertKept();
      await write();
      const byId = (await ok(t.admin.request('GET', `/identities/${id}`))).data;
      const listed = (await ok(t.admin.request('GET', '/identities', { query: `filter=id="${id}"` }))).data;
      assert.equal(JSON.stringify(byId), JSON.stringify(listed[0]));
      return byId;
    }

    const login = async () =>
      (
        await ok(
          t.anonymous.request('POST', '/authenticate', {
            query: 'method=password',
            json: { username: 'kept', password },
          }),
        )
      ).data.token as string;
    const asIdentity = async (token: string, method: string, url: string, json?: unknown) => {
      const res = await t.app.inject({
        method,
        url,
        headers: { 'zt-session': token, ...(json ? { 'content-type': 'application/json' } : {}) },
        payload: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    };

    it('renamed, tagged', async () => {
      const patch = { name: 'kept-renamed', tags: { team: 'blue' } };
      const answer = await afterWrite(() => ok(t.admin.request('PATCH', `/identities/${id}`, { json: patch })));
      assert.equal(answer.name, 'kept-renamed');
      assert.deepEqual(answer.tags, { team: 'blue' });
    });

    let authenticatorId = '';
    it('an authenticator added', async () => {
      const json = { method: 'updb', identityId: id, username: 'kept', password };
      const answer = await afterWrite(async () => {
        authenticatorId = (await ok(t.admin.request('POST', '/authenticators', { json }), 201)).data.id;
      });
      assert.equal(answer.authenticators.updb.username, 'kept');
    });

    let token = '';
    it('logged in, then logged out', async () => {
      assert.equal((await afterWrite(async () => (token = await login()))).hasApiSession, true);
      const out = () => asIdentity(token, 'DELETE', `${CLIENT}/current-api-session`);
      assert.equal((await afterWrite(out)).hasApiSession, false);
    });

    it('MFA enrolled and verified, then removed by an admin', async () => {
      token = await login();
      const answer = await afterWrite(async () => {
        assert.equal((await asIdentity(token, 'POST', `${CLIENT}/current-identity/mfa`)).status, 201);
        const status = await asIdentity(token, 'GET', `${CLIENT}/current-identity/mfa`);
        const secret = secretOf(status.body.data.provisioningUrl);
        const verify = { code: await code(secret, -1) };
        await ok(asIdentity(token, 'POST', `${CLIENT}/current-identity/mfa/verify`, verify));
      });
      assert.equal(answer.isMfaEnabled, true);
      const removed = await afterWrite(() => ok(t.admin.request('DELETE', `/identities/${id}/mfa`)));
      assert.equal(removed.isMfaEnabled, false);
    });

    it('its enrollment used up, another made with a CA that is then renamed', async () => {
      const enrollmentId = (await t.admin.request('GET', `/identities/${id}`)).body.data.enrollment.ott.id;
      const gone = await afterWrite(() => ok(t.admin.request('DELETE', `/enrollments/${enrollmentId}`)));
      assert.deepEqual(gone.enrollment, {});
      const ca = {
        name: 'kept-ca',
        certPem: opensslCa('kept-ca').pem,
        isAutoCaEnrollmentEnabled: false,
        isOttCaEnrollmentEnabled: true,
        isAuthEnabled: true,
        identityRoles: [],
      };
      const caId = (await ok(t.admin.request('POST', '/cas', { json: ca }), 201)).data.id;
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const json = { method: 'ottca', identityId: id, caId, expiresAt };
      const made = await afterWrite(() => ok(t.admin.request('POST', '/enrollments', { json }), 201));
      assert.equal(made.enrollment.ottca.ca.name, 'kept-ca');
      const renamed = await afterWrite(() =>
        ok(t.admin.request('PATCH', `/cas/${caId}`, { json: { name: 'kept-ca-renamed' } })),
      );
      assert.equal(renamed.enrollment.ottca.ca.name, 'kept-ca-renamed');
    });

    it('its auth policy renamed', async () => {
      const policy = {
        name: 'kept-policy',
        primary: {
          cert: { allowed: true, allowExpiredCerts: false },
          extJwt: { allowed: false, allowedSigners: [] },
          updb: {
            allowed: true,
            lockoutDurationMinutes: 0,
            maxAttempts: 0,
            minPasswordLength: 5,
            requireMixedCase: false,
            requireNumberChar: false,
            requireSpecialChar: false,
          },
        },
        secondary: { requireTotp: false },
      };
      const policyId = (await ok(t.admin.request('POST', '/auth-policies', { json: policy }), 201)).data.id;
      const given = await afterWrite(() =>
        ok(t.admin.request('PATCH', `/identities/${id}`, { json: { authPolicyId: policyId } })),
      );
      assert.equal(given.authPolicy.name, 'kept-policy');
      const renamed = await afterWrite(() =>
        ok(t.admin.request('PATCH', `/auth-policies/${policyId}`, { json: { name: 'kept-policy-renamed' } })),
      );
      assert.equal(renamed.authPolicy.name, 'kept-policy-renamed');
    });

    it('its authenticator deleted', async () => {
      const answer = await afterWrite(() => ok(t.admin.request('DELETE', `/authenticators/${authenticatorId}`)));
      assert.deepEqual(answer.authenticators, {});
    });

    it('disabled for a while: not kept, so the answer turns when the time passes', async () => {
      const disable = () => ok(t.admin.request('POST', `/identities/${id}/disable`, { json: { durationMinutes: 1 } }));
      assert.equal((await afterWrite(disable)).disabled, true);
      const runtime = t.app.runtime;
      const clock = runtime.clock;
      try {
        for (let i = 0; i < 3; i++) {
          const before = runtime.store.statementsRun;
          assert.equal((await t.admin.request('GET', `/identities/${id}`)).body.data.disabled, true);
          assert.ok(runtime.store.statementsRun > before, 'read each time');
        }
        runtime.clock = () => new Date(Date.now() + 120_000);
        assert.equal((await t.admin.request('GET', `/identities/${id}`)).body.data.disabled, false);
      } finally {
        runtime.clock = clock;
      }
    });

    it("an identity's own /current-identity, kept too, after a write to it", async () => {
      const own = `${CLIENT}/current-identity`;
      const ownId = (await ok(t.user.request('GET', own))).data.id as string;
      const counts: number[] = [];
      for (let i = 0; i < 4; i++) {
        const before = t.app.runtime.store.statementsRun;
        await ok(t.user.request('GET', own));
        counts.push(t.app.runtime.store.statementsRun - before);
      }
      assert.ok(counts.includes(0), `statements per GET: ${counts.join(', ')}`);
      const tags = { seen: 'after the write' };
      await ok(t.admin.request('PATCH', `/identities/${ownId}`, { json: { tags } }));
      assert.deepEqual((await ok(t.user.request('GET', own))).data.tags, tags);
    });

    it('deleted: 404 NOT_FOUND', async () => {
      await ok(t.admin.request('POST', `/identities/${id}/enable`));
      await assertKept();
      await ok(t.admin.request('DELETE', `/identities/${id}`));
      assert.equal((await t.admin.request('GET', `/identities/${id}`)).status, 404);
    });
  });
}
