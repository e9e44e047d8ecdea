import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { tlsFixture } from './testing/tls-fixture.js';
import { type TlsSessionStore, tlsSessionStore } from './tls-sessions.js';
import { createTransport, mayHaveBeenSent } from './transport.js';

/**
 * An HTTPS server answering every request with its name and whether the connection resumed a TLS session; each
 * server has session keys of its own.
 */
async function serve(name: string, key: string, cert: string): Promise<{ server: Server; url: string }> {
  const server = createServer({ key, cert }, (req, res) => {
    res.end(`${name} ${(req.socket as TLSSocket).isSessionReused() ? 'resumed' : 'full'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://localhost:${(server.address() as { port: number }).port}` };
}

const get = () => ({ method: 'GET', headers: {}, signal: AbortSignal.timeout(5000) });

describe('TLS sessions kept across runs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-tls-sessions-'));
  const fx = tlsFixture();
  let a: Awaited<ReturnType<typeof serve>>;
  let b: Awaited<ReturnType<typeof serve>>;
  let impostor: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    a = await serve('a', fx.serverKeyPem, fx.serverChainPem);
    b = await serve('b', fx.serverKeyPem, fx.serverChainPem);
    impostor = await serve('impostor', fx.otherServerKeyPem, fx.otherServerChainPem);
  });
  after(() => {
    for (const s of [a, b, impostor]) s.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One run of a command: a fresh transport, as a new process would make, sharing only the directory. */
  const run = async (url: string, origin = url, caPem = fx.caBundlePem) => {
    const transport = createTransport({ ca: caPem, sessions: tlsSessionStore(dir, origin, caPem) });
    try {
      return await transport.send(new URL(`${url}/x`), get());
    } finally {
      await transport.close();
    }
  };

  it('resumes the session of the run before instead of a full handshake, and keeps it 0600', async () => {
    assert.equal((await run(a.url)).text, 'a full');
    const file = path.join(dir, 'tls-sessions.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal((await run(a.url)).text, 'a resumed');
  });

  it('offers no session kept under another CA bundle', async () => {
    await run(a.url);
    assert.ok(tlsSessionStore(dir, a.url, fx.caBundlePem).resume());
    assert.equal(tlsSessionStore(dir, a.url, fx.rootPem).resume(), undefined);
    assert.equal(tlsSessionStore(dir, b.url, fx.caBundlePem).resume(), undefined, 'nor one of another controller');
  });

  it('makes a full, verified handshake when the controller refuses the session, and keeps the new one', async () => {
    await run(a.url);
    const kept = readFileSync(path.join(dir, 'tls-sessions.json'), 'utf8');
    // b has other session keys, as a restarted controller would: a's session, offered to it, is refused.
    assert.equal((await run(b.url, a.url)).text, 'b full');
    assert.notEqual(readFileSync(path.join(dir, 'tls-sessions.json'), 'utf8'), kept);
    assert.equal((await run(b.url, a.url)).text, 'b resumed');
  });

  it('never lets a kept session stand in for verifying a server that does not chain to the CA', async () => {
    await run(a.url);
    await assert.rejects(run(impostor.url, a.url), (err: NodeJS.ErrnoException) => {
      assert.equal(err.code, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      return true;
    });
  });

  it('drops a kept session that is not one, and makes a full handshake', async () => {
    const file = path.join(dir, 'tls-sessions.json');
    await run(a.url);
    const entries = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { session: string }>;
    entries[a.url].session = Buffer.from('not a TLS session').toString('base64');
    writeFileSync(file, JSON.stringify(entries));
    assert.equal((await run(a.url)).text, 'a full');
    assert.equal((await run(a.url)).text, 'a resumed');
  });

  it('leaves nothing behind where the file cannot be written', async () => {
    const unwritable = mkdtempSync(path.join(tmpdir(), 'ctl-tls-sessions-'));
    try {
      mkdirSync(path.join(unwritable, 'tls-sessions.json'));
      tlsSessionStore(unwritable, a.url, fx.caBundlePem).remember(Buffer.from('session'));
      assert.deepEqual(readdirSync(unwritable), ['tls-sessions.json']);
    } finally {
      rmSync(unwritable, { recursive: true, force: true });
    }
  });

  it('reads a damaged file as no session, and writes a good one again', async () => {
    const file = path.join(dir, 'tls-sessions.json');
    writeFileSync(file, '{"https://localhost:1": ', { mode: 0o600 });
    assert.equal((await run(a.url)).text, 'a full');
    assert.equal(typeof JSON.parse(readFileSync(file, 'utf8'))[a.url].session, 'string');
  });
});

describe('request bodies', () => {
  const fx = tlsFixture();
  let server: Server;
  let url: string;
  before(async () => {
    // Echoes the method and the body it read, and keeps the connection, as the controller does.
    server = createServer({ key: fx.serverKeyPem, cert: fx.serverChainPem }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => res.end(`${req.method} ${body}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://localhost:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  it('frames the body of a DELETE by its length, so the next request on the connection still parses', async () => {
    const transport = createTransport({ ca: fx.caBundlePem });
    try {
      const body = JSON.stringify([{ serviceId: 's', configId: 'c' }]);
      const send = (method: string, text?: string) =>
        transport.send(new URL(`${url}/x`), { method, headers: {}, body: text, signal: AbortSignal.timeout(5000) });
      assert.equal((await send('DELETE', body)).text, `DELETE ${body}`);
      assert.equal((await send('GET')).text, 'GET ');
    } finally {
      await transport.close();
    }
  });
});

describe('the kept TLS session, read and dropped only for a new connection', () => {
  const fx = tlsFixture();
  let a: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    a = await serve('a', fx.serverKeyPem, fx.serverChainPem);
  });
  after(() => a.server.close());

  /** A session store that counts what the transport asks of it, offering `session`. */
  const countingStore = (session?: Buffer) => {
    const calls = { resume: 0, forget: 0 };
    const store: TlsSessionStore = {
      resume: () => {
        calls.resume++;
        return session;
      },
      remember: () => {},
      forget: () => void calls.forget++,
    };
    return { calls, store };
  };

  it('reads the kept session once for requests that go over one kept connection', async () => {
    const { calls, store } = countingStore();
    const transport = createTransport({ ca: fx.caBundlePem, sessions: store });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await transport.send(new URL(`${a.url}/x`), get())).text, 'a full');
      assert.equal(calls.resume, 1);
    } finally {
      await transport.close();
    }
  });

  it('keeps the session when a request cannot be written, and says that it was never sent', async () => {
    const { calls, store } = countingStore(Buffer.from('a session'));
    const transport = createTransport({ ca: fx.caBundlePem, sessions: store });
    try {
      const headers = { 'zt-session': 'token\r\nx-admin: true' };
      await assert.rejects(transport.send(new URL(`${a.url}/x`), { ...get(), headers }), (err: Error) => {
        assert.match(err.message, /invalid character/);
        assert.ok(!mayHaveBeenSent(err));
        return true;
      });
      assert.deepEqual(calls, { resume: 0, forget: 0 });
    } finally {
      await transport.close();
    }
  });
});

describe('a kept connection the controller closes as a request goes out on it', () => {
  const fx = tlsFixture();
  let server: Server;
  let url: string;
  const seen: string[] = [];
  before(async () => {
    // Answers the first request of each connection and keeps it; the second one, it closes unanswered, as a server
    // whose keep-alive time ran out just as the request arrived.
    const served = new WeakMap<object, number>();
    server = createServer({ key: fx.serverKeyPem, cert: fx.serverChainPem }, (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      seen.push(`${req.method} ${n}`);
      if (n === 2) req.socket.destroy();
      else res.end(`${req.method} answered`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://localhost:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  const twice = async (method: string) => {
    seen.length = 0;
    const transport = createTransport({ ca: fx.caBundlePem });
    const send = () => transport.send(new URL(`${url}/x`), { method, headers: {}, signal: AbortSignal.timeout(5000) });
    try {
      assert.equal((await send()).text, `${method} answered`);
      return await send();
    } finally {
      await transport.close();
    }
  };

  it('makes a read once more on a new connection', async () => {
    assert.equal((await twice('GET')).text, 'GET answered');
    assert.deepEqual(seen, ['GET 1', 'GET 2', 'GET 1']);
  });

  it('does not repeat a write, which may have reached the controller', async () => {
    await assert.rejects(twice('POST'), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'ECONNRESET');
      assert.ok(mayHaveBeenSent(err));
      return true;
    });
    assert.deepEqual(seen, ['POST 1', 'POST 2']);
  });
});
