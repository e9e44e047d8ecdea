import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../protocol/errors.js';
import {
  apiErrorFromResponse,
  createApiClient,
  resolveUrl,
  toTransportError,
  UntrustedCertificateError,
} from './http.js';
import { startStubController } from './testing/stub-controller.js';
import type { StubController } from './testing/stub-controller.js';
import { tlsFixture } from './testing/tls-fixture.js';
import { TransportError } from './types.js';

describe('resolveUrl', () => {
  const base = 'https://c.example:1280';
  const cases: Array<[string, 'management' | 'client' | undefined, string]> = [
    ['/identities', undefined, '/edge/management/v1/identities'],
    ['identities/x', 'management', '/edge/management/v1/identities/x'],
    ['./identities/x', undefined, '/edge/management/v1/identities/x'],
    ['/current-identity', 'client', '/edge/client/v1/current-identity'],
    ['/edge/client/v1/version', undefined, '/edge/client/v1/version'],
    ['/.well-known/est/cacerts', 'client', '/.well-known/est/cacerts'],
    ['/version', undefined, '/version'],
    ['/versions', undefined, '/edge/management/v1/versions'],
    ['/authenticate?method=password', undefined, '/edge/management/v1/authenticate?method=password'],
  ];
  for (const [path, api, want] of cases) {
    it(`${api ?? 'default'} ${path}`, () => {
      const u = resolveUrl(base, path, api);
      assert.equal(u.pathname + u.search, want);
    });
  }

  it('keeps a path prefix and appends repeated query values', () => {
    const u = resolveUrl('https://proxy.example/ziti/', '/identities', 'management', {
      filter: 'name="a b"',
      roleFilter: ['#x', '@y'],
      limit: 5,
      offset: undefined,
    });
    assert.equal(u.pathname, '/ziti/edge/management/v1/identities');
    assert.deepEqual(u.searchParams.getAll('roleFilter'), ['#x', '@y']);
    assert.equal(u.searchParams.get('filter'), 'name="a b"');
    assert.equal(u.searchParams.get('limit'), '5');
    assert.equal(u.searchParams.has('offset'), false);
  });
});

describe('apiErrorFromResponse', () => {
  it('reads the envelope', () => {
    const cause = { field: 'name', reason: 'duplicate', value: 'x' };
    const err = apiErrorFromResponse(400, {
      error: { code: 'COULD_NOT_VALIDATE', message: 'bad', requestId: 'r1', cause },
    });
    assert.equal(err.code, 'COULD_NOT_VALIDATE');
    assert.equal(err.status, 400);
    assert.equal(err.message, 'bad');
    assert.equal(err.requestId, 'r1');
    assert.deepEqual(err.cause, cause);
  });

  it('keeps a cause sent as a bare string, and one that nests another', () => {
    const refusal = (cause: unknown) =>
      apiErrorFromResponse(400, { error: { code: 'COULD_NOT_VALIDATE', message: 'm', cause } });
    assert.equal(refusal('too short').cause, 'too short');
    const inner = { field: 'password', reason: 'too short', value: '<x>' };
    const nested = { code: 'UNHANDLED', message: 'outer', cause: inner };
    assert.deepEqual(refusal(nested).cause, nested);
  });

  it('keeps the real status even when the code says otherwise', () => {
    assert.equal(apiErrorFromResponse(602, { error: { code: 'COULD_NOT_VALIDATE', message: 'm' } }).status, 602);
  });

  it('falls back to the status for bodies that are not envelopes', () => {
    const e404 = apiErrorFromResponse(404, '404 page not found');
    assert.equal(e404.code, 'NOT_FOUND');
    assert.equal(e404.message, 'HTTP 404 Not Found: 404 page not found');
    const e502 = apiErrorFromResponse(502, '<html><body>Bad gateway</body></html>');
    assert.equal(e502.code, 'HTTP_502');
    assert.equal(e502.message, 'HTTP 502 Bad Gateway');
    assert.equal(apiErrorFromResponse(401, undefined).code, 'UNAUTHORIZED');
  });
});

describe('toTransportError', () => {
  const url = new URL('https://c.example:1280/edge/management/v1/identities?x=1');
  const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

  it('names the URL and explains refused connections, DNS failures and timeouts', () => {
    const refused = toTransportError(withCode('ECONNREFUSED'), url, 30_000);
    assert.match(refused.message, /connection refused/);
    assert.equal(refused.url, 'https://c.example:1280/edge/management/v1/identities');
    const aggregate = Object.assign(new AggregateError([withCode('ECONNREFUSED')], ''), {});
    assert.match(toTransportError(aggregate, url, 1000).message, /connection refused/);
    assert.match(toTransportError(withCode('ENOTFOUND'), url, 1000).message, /cannot resolve host c\.example/);
    const timeout = new DOMException('aborted', 'TimeoutError');
    assert.match(
      toTransportError(timeout, url, 5000).message,
      /no answer from https:\/\/c\.example:1280\/edge\/management\/v1\/identities within 5s/,
    );
  });

  it('says an untrusted certificate is untrusted and how to re-trust it', () => {
    const err = toTransportError(withCode('SELF_SIGNED_CERT_IN_CHAIN'), url, 1000);
    assert.ok(err instanceof UntrustedCertificateError);
    assert.match(err.message, /TLS certificate of https:\/\/c\.example:1280 is not trusted/);
    assert.match(err.hint ?? '', /`ctl login https:\/\/c\.example:1280 --ca FILE`/);
    // For a profile a bare command would not pick, the login it suggests names that profile.
    const named = toTransportError(withCode('SELF_SIGNED_CERT_IN_CHAIN'), url, 1000, { profile: 'qs2' });
    assert.match(named.hint ?? '', /`ctl login https:\/\/c\.example:1280 --ca FILE --profile qs2`/);
  });
});

describe('createApiClient against a TLS server', () => {
  let stub: StubController;
  before(async () => {
    stub = await startStubController();
  });
  after(() => stub.close());

  const trusted = () => createApiClient({ baseUrl: stub.url, caPem: tlsFixture().caBundlePem });

  it('verifies the chain against the given bundle', async () => {
    const version = await trusted().get<{ version: string }>('/edge/client/v1/version');
    assert.equal(version.version, 'v9.9.9');
  });

  it('refuses a server that does not chain to the bundle', async () => {
    const client = createApiClient({ baseUrl: stub.url, caPem: tlsFixture().otherRootPem });
    await assert.rejects(client.get('/edge/client/v1/version'), (err: unknown) => {
      assert.ok(err instanceof UntrustedCertificateError);
      assert.match(err.message, /is not trusted/);
      return true;
    });
  });

  it('refuses a self-signed chain with the system store', async () => {
    await assert.rejects(
      createApiClient({ baseUrl: stub.url }).get('/edge/client/v1/version'),
      UntrustedCertificateError,
    );
  });

  it('adopts the token the controller issues and sends it as zt-session', async () => {
    const seen: string[] = [];
    const client = createApiClient({
      baseUrl: stub.url,
      caPem: tlsFixture().caBundlePem,
      onSessionToken: (t) => seen.push(t),
    });
    const session = await client.post<{ token: string }>(
      '/authenticate?method=password',
      { username: 'admin', password: 'admin-pw' },
      { anonymous: true },
    );
    assert.deepEqual(seen, [session.token]);
    const identity = await client.get<{ name: string }>('/current-identity');
    assert.equal(identity.name, 'Default Admin');
    assert.equal(stub.requests.at(-1)?.headers['zt-session'], session.token);
  });

  it('sends list parameters, repeating roleFilter', async () => {
    const token = (
      await trusted().post<{ token: string }>('/authenticate?method=password', {
        username: 'admin',
        password: 'admin-pw',
      })
    ).token;
    const client = createApiClient({ baseUrl: stub.url, caPem: tlsFixture().caBundlePem, token });
    const page = await client.list('/identities', {
      filter: 'name contains "a"',
      limit: 2,
      offset: 4,
      roleFilter: ['#a', '#b'],
      roleSemantic: 'AnyOf',
    });
    assert.equal(page.meta.pagination.totalCount, 0);
    const sent = new URL(stub.requests.at(-1)?.url ?? '', 'https://x');
    assert.equal(sent.pathname, '/edge/management/v1/identities');
    assert.equal(sent.searchParams.get('filter'), 'name contains "a"');
    assert.equal(sent.searchParams.get('limit'), '2');
    assert.equal(sent.searchParams.get('offset'), '4');
    assert.deepEqual(sent.searchParams.getAll('roleFilter'), ['#a', '#b']);
    assert.equal(sent.searchParams.get('roleSemantic'), 'AnyOf');
  });

  it('throws ApiError from the envelope, or returns it when asked', async () => {
    const client = trusted();
    await assert.rejects(client.get('/identities'), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'UNAUTHORIZED');
      assert.equal(err.status, 401);
      assert.equal(err.requestId, 'req1');
      return true;
    });
    const res = await client.request<{ error: { code: string } }>('GET', '/identities', { throwHttpErrors: false });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });

  it('lets the owner translate API errors', async () => {
    const client = createApiClient({
      baseUrl: stub.url,
      caPem: tlsFixture().caBundlePem,
      mapError: (err, req) => new Error(`${req.method} ${req.path}: ${err.code}`),
    });
    await assert.rejects(client.delete('/things/1'), /DELETE \/things\/1: UNAUTHORIZED/);
  });

  it('times out with a TransportError naming the URL', async () => {
    const token = (
      await trusted().post<{ token: string }>('/authenticate?method=password', {
        username: 'admin',
        password: 'admin-pw',
      })
    ).token;
    const client = createApiClient({ baseUrl: stub.url, caPem: tlsFixture().caBundlePem, token, timeoutMs: 200 });
    await assert.rejects(client.get('/hang'), (err: unknown) => {
      assert.ok(err instanceof TransportError);
      assert.match(err.message, /no answer from https:\/\/localhost:\d+\/edge\/management\/v1\/hang within 200ms/);
      return true;
    });
  });

  it('says when the address does not speak HTTPS', async () => {
    const { createServer } = await import('node:http');
    const plain = createServer((_req, res) => res.end('hello')).listen(0, '127.0.0.1');
    await new Promise((resolve) => plain.once('listening', resolve));
    const { port } = plain.address() as { port: number };
    try {
      await assert.rejects(createApiClient({ baseUrl: `https://127.0.0.1:${port}` }).get('/x'), (err: unknown) => {
        assert.ok(err instanceof TransportError);
        assert.match(err.message, /^TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed: wrong version number$/);
        assert.equal(err.hint, 'check that this address serves HTTPS');
        return true;
      });
    } finally {
      plain.close();
    }
  });

  it('says when the address serves something other than HTTP over TLS', async () => {
    const fx = tlsFixture();
    const { createServer } = await import('node:tls');
    const other = createServer({ key: fx.serverKeyPem, cert: fx.serverChainPem }, (socket) => {
      socket.on('error', () => {});
      socket.write('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => other.once('listening', resolve));
    const { port } = other.address() as { port: number };
    try {
      const client = createApiClient({ baseUrl: `https://localhost:${port}`, caPem: fx.caBundlePem });
      await assert.rejects(client.get('/x'), (err: unknown) => {
        assert.ok(err instanceof TransportError);
        assert.match(
          err.message,
          /failed: the answer is not valid HTTP\/1\.1 \(status line 'SSH-2\.0-OpenSSH_9\.6'\)$/,
        );
        assert.equal(err.hint, 'check that the URL points to a controller');
        return true;
      });
    } finally {
      other.close();
    }
  });

  it('reports a refused connection', async () => {
    const closed = await startStubController();
    await closed.close();
    await assert.rejects(
      createApiClient({ baseUrl: closed.url, caPem: tlsFixture().caBundlePem }).get('/edge/client/v1/version'),
      /connection refused/,
    );
  });
});
