import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { allowsSigner, claimAt, ExtJwtError, signerRefusal, validateExtJwt } from './ext-jwt.js';
import { JwksCache } from './jwks.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer = { issuer: 'https://idp', audience: 'ctl', jwksEndpoint: 'https://idp/jwks', certPem: null };
const now = new Date('2030-01-01T00:00:00Z');
const s = now.getTime() / 1000;
// A key set that holds the one key under kid k1, with no network.
const jwks = new JwksCache({
  fetch: async () => JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1' }] }),
});
const token = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT({ iss: 'https://idp', aud: 'ctl', sub: 'id-1', exp: s + 60, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', ...header } as { alg: string })
    .sign(privateKey);
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
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString(
      'base64url',
    );
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

describe('an auth policy and a signer', () => {
  const policy = (extJwt?: { allowed?: boolean; allowedSigners?: string[] }) => ({ primary: { extJwt } });

  it('refuses every signer where ext-jwt is not allowed, or no policy is known', () => {
    const refused = 'does not allow ext-jwt logins';
    assert.equal(signerRefusal(policy({ allowed: false, allowedSigners: ['s1'] }), 's1'), refused);
    assert.equal(signerRefusal(policy(), 's1'), refused);
    assert.equal(allowsSigner(undefined, 's1'), false);
  });

  it('allows every signer with an empty or absent list, else only those listed', () => {
    assert.equal(allowsSigner(policy({ allowed: true, allowedSigners: [] }), 's1'), true);
    assert.equal(allowsSigner(policy({ allowed: true }), 's1'), true);
    assert.equal(allowsSigner(policy({ allowed: true, allowedSigners: ['s1', 's2'] }), 's2'), true);
    assert.equal(signerRefusal(policy({ allowed: true, allowedSigners: ['s2'] }), 's1'), 'allows other signers only');
  });
});
