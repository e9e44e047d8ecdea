import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createSign, randomUUID, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { createEnrollmentJwtSigner, verifyEnrollmentJwt } from './enrollment-jwt.js';
import type { EnrollmentJwtSigner } from './enrollment-jwt.js';
import { loadOrCreatePki } from './pki.js';
import type { Pki } from './pki.js';

const ISSUER = 'https://localhost:1280';
const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

let tmp: string;
let pki: Pki;
let other: Pki;
let signer: EnrollmentJwtSigner;
let kid: string;

before(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-jwt-'));
  [pki, other] = await Promise.all([
    loadOrCreatePki(path.join(tmp, 'a'), { hosts: ['localhost'] }),
    loadOrCreatePki(path.join(tmp, 'b'), { hosts: ['localhost'] }),
  ]);
  signer = createEnrollmentJwtSigner(pki, ISSUER);
  kid = createHash('sha1').update(new X509Certificate(pki.serverCertPem).raw).digest('hex');
});
after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const inOneHour = () => new Date(Date.now() + 3_600_000);

describe('enrollment JWT', () => {
  it('round-trips the OpenZiti claim set', async () => {
    const jti = randomUUID();
    const exp = inOneHour();
    const token = await signer.sign({ em: 'ott', sub: 'ident1', jti, exp, ctrls: ['tls:localhost:1280'] });
    const claims = await verifyEnrollmentJwt(token, pki);
    assert.equal(claims.em, 'ott');
    assert.equal(claims.sub, 'ident1');
    assert.equal(claims.jti, jti);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.exp, Math.floor(exp.getTime() / 1000));
    assert.deepEqual(claims.aud, ['']);
    assert.deepEqual(claims.ctrls, ['tls:localhost:1280']);
    assert.ok(Math.abs(claims.iat - Date.now() / 1000) < 60);
    assert.equal(signer.issuer, ISSUER);
  });

  it('puts exactly the documented claims in the payload', async () => {
    const token = await signer.sign({ em: 'updb', sub: 's', jti: 'j', exp: inOneHour() });
    const payload = decodeJwt(token);
    assert.deepEqual(Object.keys(payload).sort(), ['aud', 'ctrls', 'em', 'exp', 'iat', 'iss', 'jti', 'sub']);
    assert.deepEqual(payload.aud, ['']); // an array, not the string ""
    assert.deepEqual(payload.ctrls, []);
    assert.equal(Number.isInteger(payload.exp), true);
  });

  it('has header alg RS256, typ JWT and kid = hex SHA-1 of the server cert DER', async () => {
    const token = await signer.sign({ em: 'ott', sub: 's', jti: 'j', exp: inOneHour() });
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'RS256', kid, typ: 'JWT' });
    assert.match(kid, /^[0-9a-f]{40}$/);
  });

  it('rejects a tampered payload or signature', async () => {
    const token = await signer.sign({ em: 'ott', sub: 'ident1', jti: 'j', exp: inOneHour() });
    const [h, p, s] = token.split('.');
    const forgedPayload = b64url(JSON.stringify({ ...decodeJwt(token), sub: 'admin' }));
    await assert.rejects(verifyEnrollmentJwt(`${h}.${forgedPayload}.${s}`, pki), {
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    const sig = Buffer.from(s, 'base64url');
    sig[10] ^= 1;
    await assert.rejects(verifyEnrollmentJwt(`${h}.${p}.${b64url(sig)}`, pki), {
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });

  it('rejects a token signed with another key, even with our kid', async () => {
    const foreign = await createEnrollmentJwtSigner(other, ISSUER).sign({
      em: 'ott',
      sub: 's',
      jti: 'j',
      exp: inOneHour(),
    });
    await assert.rejects(verifyEnrollmentJwt(foreign, pki));
    const spoofed = await new SignJWT({ em: 'ott' })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setSubject('s')
      .setJti('j')
      .setIssuer(ISSUER)
      .setExpirationTime('1h')
      .sign(createPrivateKey(other.serverKeyPem));
    await assert.rejects(verifyEnrollmentJwt(spoofed, pki), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('rejects alg none and other algorithms', async () => {
    const payload = b64url(
      JSON.stringify({ em: 'ott', sub: 's', jti: 'j', iss: ISSUER, exp: Math.floor(Date.now() / 1000) + 3600 }),
    );
    const none = `${b64url(JSON.stringify({ alg: 'none', kid, typ: 'JWT' }))}.${payload}.`;
    await assert.rejects(verifyEnrollmentJwt(none, pki));
    // RS512 with the right key is still refused: RS256 only.
    const header = b64url(JSON.stringify({ alg: 'RS512', kid, typ: 'JWT' }));
    const sig = createSign('RSA-SHA512').update(`${header}.${payload}`).sign(pki.serverKeyPem);
    await assert.rejects(verifyEnrollmentJwt(`${header}.${payload}.${b64url(sig)}`, pki), {
      code: 'ERR_JOSE_ALG_NOT_ALLOWED',
    });
  });

  it('rejects a wrong kid, an expired token and an unknown em', async () => {
    const wrongKid = await new SignJWT({ em: 'ott' })
      .setProtectedHeader({ alg: 'RS256', kid: '0'.repeat(40), typ: 'JWT' })
      .setSubject('s')
      .setJti('j')
      .setIssuer(ISSUER)
      .setExpirationTime('1h')
      .sign(createPrivateKey(pki.serverKeyPem));
    await assert.rejects(verifyEnrollmentJwt(wrongKid, pki), /kid/);

    const expired = await signer.sign({ em: 'ott', sub: 's', jti: 'j', exp: new Date(Date.now() - 60_000) });
    await assert.rejects(verifyEnrollmentJwt(expired, pki), { code: 'ERR_JWT_EXPIRED' });
    // ...but valid at a time before its expiry
    const claims = await verifyEnrollmentJwt(expired, pki, { currentDate: new Date(Date.now() - 120_000) });
    assert.equal(claims.sub, 's');

    const badEm = await new SignJWT({ em: 'bogus' })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setSubject('s')
      .setJti('j')
      .setIssuer(ISSUER)
      .setExpirationTime('1h')
      .sign(createPrivateKey(pki.serverKeyPem));
    await assert.rejects(verifyEnrollmentJwt(badEm, pki), /em/);
  });

  it('publishes a public JWK set that verifies its tokens', async () => {
    const jwks = await signer.jwks();
    assert.equal(jwks.keys.length, 1);
    const key = jwks.keys[0] as Record<string, unknown>;
    assert.equal(key.kty, 'RSA');
    assert.equal(key.kid, kid);
    assert.equal(key.alg, 'RS256');
    assert.equal(key.use, 'sig');
    for (const priv of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[priv], undefined, priv);
    const token = await signer.sign({ em: 'erott', sub: 'router1', jti: 'j', exp: inOneHour() });
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]));
    assert.equal(payload.sub, 'router1');
  });

  it("serves the other controllers' keys too, once each, every key with its certificate", async () => {
    let membersRead = 0;
    const withMembers = createEnrollmentJwtSigner(pki, ISSUER, async () => {
      membersRead++;
      return [pki.serverCertPem, other.serverCertPem];
    });
    const { keys } = (await withMembers.jwks()) as { keys: Array<{ kid: string; x5c: string[] }> };
    const otherKid = createHash('sha1').update(new X509Certificate(other.serverCertPem).raw).digest('hex');
    assert.deepEqual(
      keys.map((key) => key.kid),
      [kid, otherKid],
    );
    const certOf = (key: { x5c: string[] }) => new X509Certificate(Buffer.from(key.x5c[0], 'base64')).toString();
    assert.deepEqual(
      keys.map(certOf),
      [pki.serverCertPem, other.serverCertPem].map((pem) => new X509Certificate(pem).toString()),
    );
    // A JWT the other controller signed verifies with this one's set.
    const theirs = await createEnrollmentJwtSigner(other, ISSUER).sign({
      em: 'ott',
      sub: 's',
      jti: 'j',
      exp: inOneHour(),
    });
    const set = createLocalJWKSet({ keys } as Parameters<typeof createLocalJWKSet>[0]);
    assert.equal((await jwtVerify(theirs, set)).payload.sub, 's');
    const theirKey = await withMembers.keyOf(otherKid);
    assert.ok(theirKey?.equals(new X509Certificate(other.serverCertPem).publicKey), 'keyOf finds it by kid');
    const read = membersRead;
    assert.equal(await withMembers.keyOf(otherKid), theirKey);
    assert.equal(await withMembers.keyOf(kid), await withMembers.keyOf(kid));
    assert.equal(membersRead, read, 'a key found once, and its own, are known without reading the members again');
    assert.equal(await withMembers.keyOf('0'.repeat(40)), undefined);
  });

  it('signs static CA and network JWTs with the same key and kid, no expiry, for openziti-enroller', async () => {
    const ca = await signer.signStatic({ em: 'ca', sub: 'ca1', jti: 'ca1' });
    assert.deepEqual(decodeProtectedHeader(ca), { alg: 'RS256', kid, typ: 'JWT' });
    const { payload } = await jwtVerify(ca, new X509Certificate(pki.serverCertPem).publicKey, {
      algorithms: ['RS256'],
    });
    assert.deepEqual(
      { ...payload, iat: 0 },
      { em: 'ca', iss: `${ISSUER}/`, sub: 'ca1', jti: 'ca1', aud: ['openziti-enroller'], iat: 0 },
    );
    // A network JWT names the controller itself; a trailing slash in the issuer is not doubled.
    const network = decodeJwt(
      await createEnrollmentJwtSigner(pki, `${ISSUER}/`).signStatic({ em: 'network', jti: 'n1' }),
    );
    assert.equal(network.iss, `${ISSUER}/`);
    assert.equal(network.sub, `${ISSUER}/`);
    assert.equal(network.exp, undefined);
  });
});
