// Enrollments end to end in-process: redeeming ott (JSON and the legacy PEM body) and updb tokens, managing
// enrollments (create, refresh, delete), and every refusal leaving the state as it was. Both stores.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { verifyEnrollmentJwt } from '../../src/controller/pki/enrollment-jwt.js';
import { resolveCertificate } from '../../src/controller/model/auth/cert-login.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';

const CLIENT = '/edge/client/v1';
const ecCsr = (cn = 'device') => createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, cn);
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

for (const store of storesUnderTest()) {
  describe(`enrollment (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    /** A new identity with one enrollment; returns its id and the enrollment as the identity detail shows it. */
    async function identityWith(enrollment: Record<string, unknown>) {
      const name = `enr-${Math.random().toString(36).slice(2, 8)}`;
      const res = await t.admin.request('POST', '/identities', {
        json: { name, type: 'Device', isAdmin: false, enrollment },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const id = res.body.data.id as string;
      const detail = (await t.admin.request('GET', `/identities/${id}`)).body.data;
      return {
        id,
        name,
        enrollment: detail.enrollment[Object.keys(enrollment)[0]] as {
          id: string;
          token: string;
          jwt: string;
          expiresAt: string;
        },
      };
    }

    const state = async (id: string) => {
      const detail = (await t.admin.request('GET', `/identities/${id}`)).body.data;
      return { enrollment: detail.enrollment, authenticators: detail.authenticators };
    };

    const enrollOtt = (token: string, clientCsr?: string) =>
      t.anonymous.request('POST', `${CLIENT}/enroll/ott`, {
        json: { token, ...(clientCsr === undefined ? {} : { clientCsr }) },
      });

    it('ott: the CSR becomes an intermediate-CA certificate and a cert authenticator; the token is spent', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const claims = await verifyEnrollmentJwt(enrollment.jwt, t.app.runtime.pki);
      assert.equal(claims.jti, enrollment.token);
      assert.equal(claims.em, 'ott');
      const res = await enrollOtt(enrollment.token, ecCsr('laptop'));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const leaf = new X509Certificate(res.body.data.cert);
      assert.ok(leaf.verify(new X509Certificate(t.app.runtime.pki.intermediateCertPem).publicKey));
      assert.equal(leaf.subjectAltName, `URI:spiffe://${t.app.runtime.pki.trustDomain}/identity/${id}`);
      assert.equal(res.body.data.ca, t.app.runtime.pki.caBundlePem);
      const after = await state(id);
      assert.deepEqual(after.enrollment, {});
      assert.equal(after.authenticators.cert.fingerprint, createHash('sha1').update(leaf.raw).digest('hex'));
      const auth = (await t.admin.request('GET', `/authenticators/${after.authenticators.cert.id}`)).body.data;
      assert.equal(auth.method, 'cert');
      assert.equal(auth.isIssuedByNetwork, true);
      assert.ok(auth.certPem.startsWith(res.body.data.cert.split('-----END CERTIFICATE-----')[0]));

      const again = await enrollOtt(enrollment.token, ecCsr());
      assert.equal(again.status, 400);
      assert.equal(again.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('ott through the legacy /enroll with a PEM body made by openssl', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
        type: 'pkcs8',
        format: 'pem',
      }) as string;
      const keyFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'ctl-enr-')), 'key.pem');
      writeFileSync(keyFile, key);
      const csr = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=legacy'], {
        encoding: 'utf8',
      });
      const res = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll?method=ott&token=${enrollment.token}`,
        headers: { 'content-type': 'application/x-pem-file' },
        payload: csr,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.json().data.cert, /BEGIN CERTIFICATE/);
      assert.ok((await state(id)).authenticators.cert);
      // Not JSON, and JSON not acceptable: refused without spending a token.
      const other = await identityWith({ ott: true });
      const refused = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll?token=${other.enrollment.token}`,
        headers: { 'content-type': 'text/plain', accept: 'application/x-pem-file' },
        payload: ecCsr(),
      });
      assert.equal(refused.statusCode, 415);
      assert.equal(refused.json().error.code, 'UNSUPPORTED_MEDIA');
      assert.ok((await state(other.id)).enrollment.ott);
    });

    it('refusals change nothing: weak key, garbage, no CSR, wrong-method token, unknown or forged tokens', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const weak = createCsr(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, 'weak');
      for (const [csr, reason] of [
        [weak, /fewer than the 2048/],
        ['not a csr', /no PEM block/],
        [undefined, /no CSR/],
      ] as const) {
        const res = await enrollOtt(enrollment.token, csr);
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'COULD_NOT_PROCESS_CSR');
        assert.match(res.body.error.message, reason);
      }
      const updb = await identityWith({ updb: `user-${Math.random().toString(36).slice(2, 8)}` });
      const wrongMethod = await enrollOtt(updb.enrollment.token, ecCsr());
      assert.equal(wrongMethod.body.error.code, 'INVALID_ENROLL_METHOD');
      const unknown = await enrollOtt('3b0d8f5e-0000-4000-8000-000000000000', ecCsr());
      assert.equal(unknown.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
      // The JWT is not the credential: a JWT with the right claims but our token changed is still an unknown token.
      const forgedJti = enrollment.token.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
      assert.equal((await enrollOtt(forgedJti, ecCsr())).body.error.code, 'INVALID_ENROLLMENT_TOKEN');
      const now = await state(id);
      assert.equal(now.enrollment.ott.token, enrollment.token);
      assert.deepEqual(now.authenticators, {});
      assert.ok((await state(updb.id)).enrollment.updb);
    });

    it('CSRs openssl made for keys of a wrong type or curve are refused, naming the key; nothing changes', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-wrong-key-'));
      const csrFor = (name: string, keyArgs: string[]) => {
        execFileSync(
          'openssl',
          [
            'req',
            '-new',
            ...keyArgs,
            '-nodes',
            '-keyout',
            `${name}.key`,
            '-out',
            `${name}.csr`,
            '-subj',
            `/CN=${name}`,
          ],
          { cwd: dir, stdio: 'ignore' },
        );
        return readFileSync(path.join(dir, `${name}.csr`), 'utf8');
      };
      const cases: [string, RegExp][] = [
        [csrFor('ed25519', ['-newkey', 'ed25519']), /algorithm not accepted|RSA or EC/],
        [
          csrFor('secp256k1', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp256k1']),
          /curve secp256k1; P-256 or P-384 is required/,
        ],
        [
          csrFor('p521', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521']),
          /curve secp521r1; P-256 or P-384 is required/,
        ],
        [csrFor('rsa6144', ['-newkey', 'rsa:6144']), /more than the 4096 accepted/],
      ];
      for (const [csr, reason] of cases) {
        const res = await enrollOtt(enrollment.token, csr);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, 'COULD_NOT_PROCESS_CSR');
        assert.equal(res.body.error.cause.field, 'clientCsr');
        assert.match(res.body.error.message, reason);
      }
      const now = await state(id);
      assert.equal(now.enrollment.ott.token, enrollment.token, 'the token is not spent');
      assert.deepEqual(now.authenticators, {});
    });

    it('an expired token is ENROLLMENT_EXPIRED and kept until a refresh revives it with a new token', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const clock = t.app.runtime.clock;
      t.app.runtime.clock = () => new Date(Date.parse(enrollment.expiresAt) + 1000);
      try {
        const res = await enrollOtt(enrollment.token, ecCsr());
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, 'ENROLLMENT_EXPIRED');
      } finally {
        t.app.runtime.clock = clock;
      }
      assert.equal((await state(id)).enrollment.ott.token, enrollment.token);
      const refreshed = await t.admin.request('POST', `/enrollments/${enrollment.id}/refresh`, {
        json: { expiresAt: later(60) },
      });
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      assert.equal(refreshed.body.data.id, enrollment.id);
      const now = (await state(id)).enrollment.ott;
      assert.notEqual(now.token, enrollment.token);
      assert.notEqual(now.jwt, enrollment.jwt);
      const claims = await verifyEnrollmentJwt(now.jwt, t.app.runtime.pki);
      assert.equal(claims.jti, now.token);
      assert.equal(claims.exp, Math.floor(Date.parse(now.expiresAt) / 1000));
      assert.equal((await enrollOtt(enrollment.token, ecCsr())).body.error.code, 'INVALID_ENROLLMENT_TOKEN');
      assert.equal((await enrollOtt(now.token, ecCsr())).status, 200);
    });

    it('updb: the password is set, the enrollment becomes a updb authenticator, and the identity logs in', async () => {
      const username = `updb-${Math.random().toString(36).slice(2, 8)}`;
      const { id, enrollment } = await identityWith({ updb: username });
      const missing = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, { json: { password: 'Secret-123' } });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.cause.field, 'token');
      const short = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${enrollment.token}`,
        json: { password: 'abc' },
      });
      assert.equal(short.status, 400);
      assert.equal(short.body.error.code, 'COULD_NOT_VALIDATE');
      const res = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${enrollment.token}`,
        json: { password: 'Secret-123' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.username, username);
      const s = await state(id);
      assert.deepEqual(s.enrollment, {});
      assert.equal(s.authenticators.updb.username, username);
      const login = await t.anonymous.request('POST', '/authenticate', {
        query: 'method=password',
        json: { username, password: 'Secret-123' },
      });
      assert.equal(login.status, 200);
      const again = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${enrollment.token}`,
        json: { password: 'Other-123' },
      });
      assert.equal(again.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('updb usernames: no minimum length (OpenZiti\'s 4 are for its default admin); "" asks for none', async () => {
      const short = `${Math.random().toString(36).slice(2, 5)}`;
      const { id, enrollment } = await identityWith({ updb: short });
      const query = `token=${enrollment.token}`;
      const res = await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, { query, json: { password: 'Secret-1' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await state(id)).authenticators.updb.username, short);
      const user = (name: string, extra: Record<string, unknown> = {}) =>
        t.admin.request('POST', '/identities', { json: { name, type: 'User', isAdmin: false, ...extra } });
      const identityId = (await user(`two-${short}`)).body.data.id;
      const json = { identityId, method: 'updb', username: short.slice(0, 2), expiresAt: later(30) };
      const two = await t.admin.request('POST', '/enrollments', { json });
      assert.equal(two.status, 201, JSON.stringify(two.body));
      const none = await user(`none-${short}`, { enrollment: { ott: false, updb: '' } });
      assert.equal(none.status, 201, JSON.stringify(none.body));
      assert.deepEqual((await state(none.body.data.id)).enrollment, {});
      const long = await user(`long-${short}`, { enrollment: { updb: 'x'.repeat(101) } });
      assert.equal(long.status, 400);
      assert.equal(long.body.error.cause.field, 'enrollment.updb');
    });

    it('/enrollments: create, 409 for a second of the method, bad input named, delete spends the token', async () => {
      const identityId = (
        await t.admin.request('POST', '/identities', {
          json: { name: `plain-${Date.now()}`, type: 'User', isAdmin: false },
        })
      ).body.data.id;
      const created = await t.admin.request('POST', '/enrollments', {
        json: { identityId, method: 'ott', expiresAt: later(30) },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const second = await t.admin.request('POST', '/enrollments', {
        json: { identityId, method: 'ott', expiresAt: later(30) },
      });
      assert.equal(second.status, 409);
      assert.equal(second.body.error.code, 'ENROLLMENT_EXISTS');
      const detail = (await t.admin.request('GET', `/enrollments/${created.body.data.id}`)).body.data;
      assert.equal(detail.method, 'ott');
      assert.equal(detail.identityId, identityId);
      assert.equal((await verifyEnrollmentJwt(detail.jwt, t.app.runtime.pki)).sub, identityId);

      const bad = async (json: Record<string, unknown>, field: string) => {
        const res = await t.admin.request('POST', '/enrollments', { json });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body));
      };
      await bad({ identityId, method: 'updb', expiresAt: later(30) }, 'username');
      await bad(
        { identityId, method: 'updb', username: 'someone', expiresAt: new Date(Date.now() - 60_000).toISOString() },
        'expiresAt',
      );
      await bad({ identityId, method: 'ottca', caId: 'x', expiresAt: later(30) }, 'caId');
      await bad({ identityId, method: 'ottca', expiresAt: later(30) }, 'caId');
      await bad({ identityId, method: 'ott', caId: 'x', expiresAt: later(30) }, 'caId');
      await bad({ identityId: 'nope', method: 'ott', expiresAt: later(30) }, 'identityId');
      const updb = await t.admin.request('POST', '/enrollments', {
        json: { identityId, method: 'updb', username: `u-${Date.now()}`, expiresAt: later(30) },
      });
      assert.equal(updb.status, 201);

      const refreshPast = await t.admin.request('POST', `/enrollments/${created.body.data.id}/refresh`, {
        json: { expiresAt: '2001-01-01T00:00:00Z' },
      });
      assert.equal(refreshPast.body.error.cause.field, 'expiresAt');
      assert.equal(
        (await t.admin.request('POST', '/enrollments/nope/refresh', { json: { expiresAt: later(5) } })).status,
        404,
      );

      assert.equal((await t.admin.request('DELETE', `/enrollments/${created.body.data.id}`)).status, 200);
      assert.equal((await enrollOtt(detail.token, ecCsr())).body.error.code, 'INVALID_ENROLLMENT_TOKEN');
    });

    it("/enrollments filter by the identity's name through identity.name", async () => {
      const a = await identityWith({ ott: true });
      const b = await identityWith({ ott: true });
      const ids = async (filter: string) => {
        const res = await t.admin.request('GET', `/enrollments?filter=${encodeURIComponent(filter)}`);
        assert.equal(res.status, 200, `${filter}: ${JSON.stringify(res.body)}`);
        return (res.body.data as { id: string }[]).map((e) => e.id).sort();
      };
      assert.deepEqual(await ids(`identity.name = "${a.name}"`), [a.enrollment.id]);
      const both = [a.enrollment.id, b.enrollment.id].sort();
      assert.deepEqual(await ids(`identity.name in ["${a.name}", "${b.name}"]`), both);
      assert.deepEqual(await ids(`identity = "${b.id}"`), [b.enrollment.id]);
    });

    it('reverting an authenticator: cert (ours) -> ott, updb -> updb with its username; sessions end', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      assert.equal((await enrollOtt(enrollment.token, ecCsr())).status, 200);
      const certAuth = (await state(id)).authenticators.cert.id;
      const expiresAt = later(60);
      const reverted = await t.admin.request('POST', `/authenticators/${certAuth}/re-enroll`, { json: { expiresAt } });
      assert.equal(reverted.status, 201, JSON.stringify(reverted.body));
      const s = await state(id);
      assert.deepEqual(s.authenticators, {});
      assert.equal(s.enrollment.ott.id, reverted.body.data.id);
      assert.equal(s.enrollment.ott.expiresAt, expiresAt);
      assert.equal((await enrollOtt(s.enrollment.ott.token, ecCsr())).status, 200);

      const username = `rev-${Math.random().toString(36).slice(2, 8)}`;
      const user = await identityWith({ updb: username });
      await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${user.enrollment.token}`,
        json: { password: 'First-123' },
      });
      const login = await t.anonymous.request('POST', '/authenticate', {
        query: 'method=password',
        json: { username, password: 'First-123' },
      });
      assert.equal(login.status, 200);
      const updbAuth = (await state(user.id)).authenticators.updb.id;
      assert.equal(
        (await t.admin.request('POST', `/authenticators/${updbAuth}/re-enroll`, { json: { expiresAt } })).status,
        201,
      );
      const again = (await state(user.id)).enrollment.updb;
      assert.ok(again, 'a updb enrollment replaces the password');
      // The session opened with the old password is gone, and the password no longer works.
      const session = await t.app.inject({
        method: 'GET',
        url: '/edge/client/v1/current-api-session',
        headers: { 'zt-session': login.body.data.token },
      });
      assert.equal(session.statusCode, 401);
      assert.equal(
        (
          await t.anonymous.request('POST', '/authenticate', {
            query: 'method=password',
            json: { username, password: 'First-123' },
          })
        ).status,
        401,
      );
      await t.anonymous.request('POST', `${CLIENT}/enroll/updb`, {
        query: `token=${again.token}`,
        json: { password: 'Second-123' },
      });
      assert.equal(
        (
          await t.anonymous.request('POST', '/authenticate', {
            query: 'method=password',
            json: { username, password: 'Second-123' },
          })
        ).status,
        200,
      );

      // An outstanding enrollment of the method already: 409, and the authenticator stays.
      const busy = await identityWith({ ott: true });
      await enrollOtt(busy.enrollment.token, ecCsr());
      const busyAuth = (await state(busy.id)).authenticators.cert.id;
      assert.equal(
        (await t.admin.request('POST', '/enrollments', { json: { identityId: busy.id, method: 'ott', expiresAt } }))
          .status,
        201,
      );
      const conflict = await t.admin.request('POST', `/authenticators/${busyAuth}/re-enroll`, { json: { expiresAt } });
      assert.equal(conflict.status, 409);
      assert.equal(conflict.body.error.code, 'ENROLLMENT_EXISTS');
      assert.ok((await state(busy.id)).authenticators.cert);
      assert.equal(
        (await t.admin.request('POST', '/authenticators/nope/re-enroll', { json: { expiresAt } })).status,
        404,
      );
    });

    it('of five concurrent redemptions of one token, exactly one succeeds', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const results = await Promise.all(Array.from({ length: 5 }, () => enrollOtt(enrollment.token, ecCsr())));
      assert.equal(results.filter((r) => r.status === 200).length, 1, results.map((r) => r.status).join(','));
      for (const r of results.filter((r) => r.status !== 200))
        assert.equal(r.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
      const auths = (await t.admin.request('GET', `/identities/${id}/authenticators`)).body.data;
      assert.equal(auths.length, 1);
    });

    it('cert login: the auth policy decides about certificates and expired ones; unknown ones never pass', async () => {
      const { id, enrollment } = await identityWith({ ott: true });
      const res = await enrollOtt(enrollment.token, ecCsr());
      const leaf = new X509Certificate(res.body.data.cert);
      const rt = t.app.runtime;
      const now = new Date();
      assert.equal((await resolveCertificate(rt, leaf.raw, now)).subject.identity.id, id);
      // The default policy allows expired certificates, as OpenZiti's does.
      const past = new Date(Date.parse(leaf.validTo) + 86_400_000);
      assert.equal((await resolveCertificate(rt, leaf.raw, past)).subject.identity.id, id);
      const policy = (allowed: boolean, allowExpiredCerts: boolean) => ({
        name: `cert-${allowed}-${allowExpiredCerts}-${Math.random()}`,
        primary: {
          cert: { allowed, allowExpiredCerts },
          updb: { ...DEFAULT_UPDB_RULES },
          extJwt: { allowed: false, allowedSigners: [] },
        },
        secondary: { requireTotp: false, requireExtJwtSigner: null },
      });
      const strict = await rt.writes.insert('auth-policy', policy(true, false), { now: now.toISOString() });
      await rt.writes.update('identity', id, { authPolicyId: strict }, now.toISOString());
      assert.equal((await resolveCertificate(rt, leaf.raw, now)).subject.identity.id, id);
      await assert.rejects(resolveCertificate(rt, leaf.raw, past), /outside its validity/);
      const none = await rt.writes.insert('auth-policy', policy(false, true), { now: now.toISOString() });
      await rt.writes.update('identity', id, { authPolicyId: none }, now.toISOString());
      await assert.rejects(resolveCertificate(rt, leaf.raw, now), /does not allow certificates/);
      await assert.rejects(resolveCertificate(rt, undefined, now), /no client certificate/);
      await assert.rejects(resolveCertificate(rt, Buffer.from('junk'), now), /cannot be read/);
      // Over a socket without TLS (as inject is) there is no certificate: 401.
      const plain = await t.anonymous.request('POST', '/authenticate', { query: 'method=cert' });
      assert.equal(plain.status, 401);
      assert.equal(plain.body.error.code, 'INVALID_AUTH');
    });

    it('/enroll/jwks lists the key that verifies enrollment JWTs', async () => {
      const res = await t.app.inject({ method: 'GET', url: `${CLIENT}/enroll/jwks` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().keys.length, 1);
      assert.equal(res.json().keys[0].kty, 'RSA');
    });
  });
}
