import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { claimAt, ExtJwtError, validateExtJwt } from './ext-jwt.js';
import { JwksCache } from './jwks.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer = { issuer: 'https://idp', audience: 'ctl', jwksEndpoint: 'https://idp/jwks', certPem: null };
const now = new Date('2030-01-01T00:00:00Z');
const s = now.getTime() / 1000;
// A key set that holds the one key under kid k1, with no network.
const jwks = new JwksCache({ fetch: async () => JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] }) });
const token = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT({ iss: 'https://idp', aud: 'ctl', sub: 'id-1', exp: s + 60, ...claims }).setProtectedHeader({ alg: 'ES256', kid: 'k1', ...header } as { alg: string }).sign(privateKey);
const step = async (t: Promise<string>) => {
  try {
    await validateExtJwt(await t, signer, { jwks, now });
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof ExtJwtError, String(err));
    return err.step;
  }
};

describe('validateExtJwt', () => {
  it('names the first step a token fails', async () => {
    assert.equal(await step(token({})), 'ok');
    assert.equal(await step(token({}, { kid: 'k2' })), 'kid');
    // A critical header this code does not understand (signed by hand: jose refuses to make one).
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const header = b64({ alg: 'ES256', kid: 'k1', crit: ['x'], x: 1 });
    const input = `${header}.${b64({ iss: 'https://idp', aud: 'ctl', sub: 'id-1', exp: s + 60 })}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    assert.equal(await step(Promise.resolve(`${input}.${signature}`)), 'format');
    assert.equal(await step(token({ iss: 'https://other' })), 'issuer');
    assert.equal(await step(token({ aud: 'x' })), 'audience');
    assert.equal(await step(token({ exp: s })), 'expiry', 'exp equal to now is expired');
    assert.equal(await step(token({ nbf: s + 1 })), 'not-yet-valid');
    assert.equal(await step(token({ sub: 42 })), 'claim');
    assert.equal(await step(Promise.resolve('a.b')), 'format');
  });

  it('reads claims by name or JSON pointer', () => {
    const claims = { sub: 'a', ext: { 'a/b': 'slash', mail: 'm' } };
    assert.equal(claimAt(claims, 'sub'), 'a');
    assert.equal(claimAt(claims, '/sub'), 'a');
    assert.equal(claimAt(claims, '/ext/mail'), 'm');
    assert.equal(claimAt(claims, '/ext/a~1b'), 'slash');
    assert.equal(claimAt(claims, '/nope/x'), undefined);
  });
});
