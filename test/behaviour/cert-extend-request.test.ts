// An administrator asks a certificate's holder to extend it early (request-extend, optionally with a new key): the
// authenticator and the holder's API session show it, and a verified extension answers it. Only certificate
// authenticators take the request (403); bad bodies and unknown ids change nothing. The enrollment challenge
// proves the controller holds the key its enrollment JWTs name.
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, randomUUID, verify, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const CLIENT = '/edge/client/v1';

for (const store of storesUnderTest()) {
  describe(`certificate extension requests (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    /** A new identity enrolled with a certificate, and a session opened with that certificate's authenticator. */
    async function enrolledWithSession() {
      const res = await t.admin.request('POST', '/identities', {
        json: {
          name: `ext-req-${randomUUID().slice(0, 8)}`,
          type: 'Device',
          isAdmin: false,
          enrollment: { ott: true },
        },
      });
      const id = res.body.data.id as string;
      const token = (await t.admin.request('GET', `/identities/${id}`)).body.data.enrollment.ott.token;
      const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
      const enrolled = await t.anonymous.request('POST', `${CLIENT}/enroll/ott`, {
        json: { token, clientCsr: createCsr(key, 'device') },
      });
      assert.equal(enrolled.status, 200, JSON.stringify(enrolled.body));
      const auth = (
        await t.admin.request('GET', '/authenticators', { query: `filter=${encodeURIComponent(`identity = "${id}"`)}` })
      ).body.data[0];
      // The session a certificate login opens (the TLS handshake is what the HTTPS tests cover).
      const session = await t.app.runtime.apiSessions.create({
        identityId: id,
        authenticatorId: auth.id,
        ipAddress: '127.0.0.1',
        configTypes: [],
        now: new Date(),
      });
      const as = async (method: string, url: string, json?: unknown) => {
        const r = await t.app.inject({
          method,
          url,
          headers: {
            'zt-session': session.token,
            ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          },
          payload: json === undefined ? undefined : JSON.stringify(json),
        });
        return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : undefined };
      };
      return { id, auth, as };
    }

    it('request-extend flags the authenticator and the session; a verified extension clears the request', async () => {
      const { auth, as } = await enrolledWithSession();
      assert.equal(auth.isExtendRequested, false);
      assert.equal(auth.isKeyRollRequested, false);
      assert.equal(auth.extendRequestedAt, undefined);
      let session = (await as('GET', `${CLIENT}/current-api-session`)).body.data;
      assert.equal(session.isCertExtendable, true, 'a certificate this controller issued can be extended');
      assert.equal(session.isCertExtendRequested, false);

      const res = await t.admin.request('POST', `/authenticators/${auth.id}/request-extend`, {
        json: { rollKeys: true },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const flagged = (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data;
      assert.equal(flagged.isExtendRequested, true);
      assert.equal(flagged.isKeyRollRequested, true);
      assert.ok(Math.abs(Date.parse(flagged.extendRequestedAt) - Date.now()) < 60_000);
      session = (await as('GET', `${CLIENT}/current-api-session`)).body.data;
      assert.equal(session.isCertExtendRequested, true);
      assert.equal(session.isCertKeyRollRequested, true);
      const listed = (
        await t.admin.request('GET', '/api-sessions', { query: `filter=${encodeURIComponent(`id = "${session.id}"`)}` })
      ).body.data;
      assert.deepEqual(
        listed.map((s: Record<string, unknown>) => [
          s.isCertExtendable,
          s.isCertExtendRequested,
          s.isCertKeyRollRequested,
        ]),
        [[true, true, true]],
        'administrators see the same flags in the API session list',
      );
      const own = (await as('GET', `${CLIENT}/current-identity/authenticators/${auth.id}`)).body.data;
      assert.equal(own.isExtendRequested, true, 'the holder sees the request on its own authenticator too');

      // The holder extends with a new key and verifies: the request is answered.
      const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
      const extended = await as('POST', `${CLIENT}/current-identity/authenticators/${auth.id}/extend`, {
        clientCertCsr: createCsr(key, 'device'),
      });
      assert.equal(extended.status, 200, JSON.stringify(extended.body));
      assert.equal(
        (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data.isExtendRequested,
        true,
        'still asked until verified',
      );
      const verified = await as('POST', `${CLIENT}/current-identity/authenticators/${auth.id}/extend-verify`, {
        clientCert: extended.body.data.clientCert,
      });
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      const answered = (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data;
      assert.equal(answered.isExtendRequested, false);
      assert.equal(answered.isKeyRollRequested, false);
      assert.equal(answered.extendRequestedAt, undefined);
      assert.equal(
        answered.fingerprint,
        new X509Certificate(extended.body.data.clientCert).fingerprint.replace(/:/g, '').toLowerCase(),
      );
      assert.equal(answered.lastExtendRolledKeys, true, 'the extension came with a new key');

      // Without rollKeys (an empty body too) only the extension is asked for.
      assert.equal(
        (await t.admin.request('POST', `/authenticators/${auth.id}/request-extend`, { json: {} })).status,
        200,
      );
      const again = (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data;
      assert.equal(again.isExtendRequested, true);
      assert.equal(again.isKeyRollRequested, false);
      // Extended with the same key this time: the request is answered, but no key was rolled.
      const sameKey = await as('POST', `${CLIENT}/current-identity/authenticators/${auth.id}/extend`, {
        clientCertCsr: createCsr(key, 'device'),
      });
      assert.equal(sameKey.status, 200, JSON.stringify(sameKey.body));
      assert.equal(
        (
          await as('POST', `${CLIENT}/current-identity/authenticators/${auth.id}/extend-verify`, {
            clientCert: sameKey.body.data.clientCert,
          })
        ).status,
        200,
      );
      const kept = (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data;
      assert.equal(kept.isExtendRequested, false);
      assert.equal(kept.lastExtendRolledKeys, false);
    });

    it('refusals change nothing: password authenticator 403, unknown id 404, bad body 400, no admin 401', async () => {
      const { auth } = await enrolledWithSession();
      const updb = (
        await t.admin.request('GET', '/authenticators', { query: `filter=${encodeURIComponent('method = "updb"')}` })
      ).body.data[0];
      const forbidden = await t.admin.request('POST', `/authenticators/${updb.id}/request-extend`, {
        json: { rollKeys: false },
      });
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.body.error.code, 'FORBIDDEN');
      assert.equal((await t.admin.request('POST', '/authenticators/nope/request-extend', { json: {} })).status, 404);
      const bad = await t.admin.request('POST', `/authenticators/${auth.id}/request-extend`, {
        json: { rollKeys: 'yes' },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.cause.field, 'rollKeys');
      assert.equal(
        (await t.user.request('POST', `/authenticators/${auth.id}/request-extend`, { json: {} })).status,
        401,
      );
      const unchanged = (await t.admin.request('GET', `/authenticators/${auth.id}`)).body.data;
      assert.equal(unchanged.isExtendRequested, false);
      assert.equal(unchanged.updatedAt, auth.updatedAt);
    });
  });

  describe(`enrollment challenge (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    const challenge = (json: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll/challenge`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(json),
      });

    it('signs the nonce with the key /enroll/jwks names by kid; it verifies, the CA pool is the bundle', async () => {
      const jwks = JSON.parse((await t.app.inject({ method: 'GET', url: `${CLIENT}/enroll/jwks` })).body);
      const jwk = jwks.keys[0];
      const nonce = randomUUID();
      const res = await challenge({ keyId: jwk.kid, nonce });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['algorithm', 'caPool', 'kid', 'signature'], 'no envelope');
      assert.equal(body.algorithm, 'RS256');
      assert.equal(body.kid, jwk.kid);
      assert.equal(body.caPool, t.app.runtime.pki.caBundlePem);
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      assert.ok(
        verify('sha256', Buffer.from(nonce), key, Buffer.from(body.signature, 'base64')),
        'the signature is of the nonce by the JWKS key',
      );
      assert.ok(!verify('sha256', Buffer.from(randomUUID()), key, Buffer.from(body.signature, 'base64')));
      // The key is the one in the controller certificate, which the CA pool vouches for.
      const server = new X509Certificate(t.app.runtime.pki.serverCertPem);
      assert.ok(verify('sha256', Buffer.from(nonce), server.publicKey, Buffer.from(body.signature, 'base64')));
      assert.ok(server.verify(new X509Certificate(t.app.runtime.pki.intermediateCertPem).publicKey));
    });

    it('bad input is a 400 naming the field: an unknown kid, a nonce that is not a UUID, missing members', async () => {
      const kid = JSON.parse((await t.app.inject({ method: 'GET', url: `${CLIENT}/enroll/jwks` })).body).keys[0].kid;
      const cases: [unknown, string][] = [
        [{ keyId: 'not-our-key', nonce: randomUUID() }, 'keyId'],
        [{ keyId: kid, nonce: 'hello' }, 'nonce'],
        [{ keyId: kid }, 'nonce'],
        [{ nonce: randomUUID() }, 'keyId'],
        [{ keyId: kid, nonce: randomUUID(), more: 1 }, 'more'],
      ];
      for (const [json, field] of cases) {
        const res = await challenge(json);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.cause.field, field, res.body);
      }
    });
  });
}
