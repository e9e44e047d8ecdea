import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { boundedFetch, isLinkLocal, JwksCache, JwksError, parseKeySet } from './jwks.js';

const ec = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
const jwk = (kid: string, key = ec()) => ({ ...key.export({ format: 'jwk' }), kid });

describe('JwksCache', () => {
  it('shares one fetch among concurrent lookups, and fetches unknown kids at most once per interval', async () => {
    let now = 0;
    let calls = 0;
    let answer = JSON.stringify({ keys: [jwk('a')] });
    const cache = new JwksCache({
      now: () => now,
      minRefetchIntervalMs: 1_000,
      fetch: async () => {
        calls++;
        return answer;
      },
    });
    const found = await Promise.all([cache.key('u', 'a'), cache.key('u', 'a'), cache.key('u', 'zz')]);
    assert.equal(calls, 1);
    assert.ok(found[0] && found[1] && !found[2]);
    for (let i = 0; i < 50; i++) assert.equal(await cache.key('u', `x${i}`), undefined);
    assert.equal(calls, 1, 'no fetch within the interval');
    answer = JSON.stringify({ keys: [jwk('a'), jwk('b')] });
    now = 1_000;
    assert.ok(await cache.key('u', 'b'), 'rotation: the new kid after the interval');
    assert.equal(calls, 2);
  });

  it('a failed fetch is re-thrown within the interval (not retried), and keys fetched before stay usable', async () => {
    let now = 0;
    let calls = 0;
    let fail = true;
    const cache = new JwksCache({
      now: () => now,
      minRefetchIntervalMs: 1_000,
      fetch: async () => {
        calls++;
        if (fail) throw new JwksError('down');
        return JSON.stringify({ keys: [jwk('a')] });
      },
    });
    await assert.rejects(cache.key('u', 'a'), /down/);
    await assert.rejects(cache.key('u', 'a'), /down/);
    assert.equal(calls, 1);
    now = 1_000;
    fail = false;
    assert.ok(await cache.key('u', 'a'));
    fail = true;
    now = 2_000;
    assert.equal(await cache.key('u', 'b'), undefined, 'the failed refetch leaves the old keys');
    assert.ok(await cache.key('u', 'a'));
  });
});

describe('parseKeySet', () => {
  it('skips symmetric, encryption-only and kid-less keys; reads public members only', () => {
    const keys = parseKeySet(
      JSON.stringify({
        keys: [
          { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' },
          { ...jwk('enc'), use: 'enc' },
          { ...jwk('x'), kid: undefined },
          jwk('good'),
        ],
      }),
    );
    assert.deepEqual([...keys.keys()], ['good']);
    const priv = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const fromPrivate = parseKeySet(JSON.stringify({ keys: [{ ...priv, kid: 'p' }] }));
    assert.equal(fromPrivate.get('p')?.type, 'public');
    assert.throws(() => parseKeySet('{"nokeys":1}'), JwksError);
    assert.throws(() => parseKeySet('<html>'), JwksError);
  });
});

describe('boundedFetch', () => {
  const fetchBounded = boundedFetch(() => import('undici'));

  it('never fetches from link-local addresses (instance metadata), by literal or by name', async () => {
    assert.ok(isLinkLocal('169.254.169.254') && isLinkLocal('fe80::1') && isLinkLocal('::ffff:169.254.1.1'));
    assert.ok(!isLinkLocal('127.0.0.1') && !isLinkLocal('10.0.0.1') && !isLinkLocal('::1'));
    await assert.rejects(
      fetchBounded('http://169.254.169.254/latest/meta-data', { timeoutMs: 500, maxBytes: 1024 }),
      /link-local/,
    );
    await assert.rejects(fetchBounded('http://[fe80::1]/jwks', { timeoutMs: 500, maxBytes: 1024 }), /link-local/);
  });

  it('fetches by host name through the guarded lookup', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => res.end('{"keys":[]}'));
    await new Promise<void>((r) => server.listen(0, 'localhost', r));
    try {
      const port = (server.address() as { port: number }).port;
      assert.equal(
        await fetchBounded(`http://localhost:${port}/jwks`, { timeoutMs: 2_000, maxBytes: 1024 }),
        '{"keys":[]}',
      );
    } finally {
      server.close();
    }
  });
});
