// What an unauthenticated client can make the listener hold (docs/security.md, "Limits"): small bodies on public
// routes, handshake/header/body timeouts, a cap on connections per client address, forward-secret TLS only.
// Real sockets against the real controller, with the timeouts shortened so the tests stay fast.
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  startTestController,
  unique,
} from '../helpers/controller.js';

let ctl: TestController;
let admin: HttpHelper;
const MAX_CONNECTIONS = 8;

before(async () => {
  ctl = await startTestController({
    serverLimits: {
      handshakeTimeoutMs: 500,
      headersTimeoutMs: 500,
      requestTimeoutMs: 1500,
      checkIntervalMs: 100,
      maxConnectionsPerAddress: MAX_CONNECTIONS,
    },
  });
  admin = await ctl.admin();
});
after(() => ctl?.close());

/** Resolves with the ms it took the server to close the socket, or rejects after `withinMs`. */
function closedWithin(socket: net.Socket, withinMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for more than ${withinMs} ms`));
    }, withinMs);
    socket.on('error', () => {});
    socket.resume(); // a socket nobody reads never ends, so it would never report the close
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

function rawConnect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: ctl.port }, () => resolve(socket));
    socket.once('error', reject);
  });
}

function tlsConnect(extra: tls.ConnectionOptions = {}): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: ctl.port, ca: ctl.caPem, ...extra }, () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('body limits by route access', () => {
  it('a public route (authenticate) refuses a body over 16 KiB with 413', async () => {
    const body = JSON.stringify({ username: 'admin', password: 'x'.repeat(20), pad: ' ' }).replace(
      '"pad"',
      `${' '.repeat(17 * 1024)}"pad"`,
    );
    const res = await ctl.api.post('/authenticate', undefined, { query: { method: 'password' }, body, token: null });
    assertError(res, 413, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('an authenticated route still takes a large body (100 KiB)', async () => {
    const padding = ' '.repeat(100 * 1024);
    const body = `${padding}${JSON.stringify({ name: unique('big-body'), type: 'User', isAdmin: false })}`;
    assertStatus(await admin.post('/identities', undefined, { body }), 201);
  });
});

describe('timeouts before a request is complete', () => {
  it('closes a TCP connection that never starts TLS', async () => {
    const ms = await closedWithin(await rawConnect(), 5_000);
    assert.ok(ms >= 300, `closed after ${ms} ms`);
  });

  it('closes a TLS connection whose headers never end', async () => {
    const socket = await tlsConnect();
    socket.write('GET /version HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n');
    await closedWithin(socket, 5_000);
  });

  it('closes a connection whose body never arrives (408)', async () => {
    const socket = await tlsConnect();
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.write(
      'POST /edge/client/v1/authenticate?method=password HTTP/1.1\r\nHost: localhost\r\n' +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"user',
    );
    await closedWithin(socket, 6_000);
    assert.match(answer, /^HTTP\/1\.1 408/);
  });
});

describe('connections per client address', () => {
  it(`accepts ${MAX_CONNECTIONS} open connections from one address and closes the next at once`, async () => {
    const held = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) held.push(await rawConnect());
    try {
      const extra = await rawConnect();
      const ms = await closedWithin(extra, 250);
      assert.ok(ms < 250);
      await assert.rejects(ctl.api.get('/version', { api: 'root', freshConnection: true }));
    } finally {
      for (const s of held) s.destroy();
    }
    // Once they are closed, the address is welcome again.
    await new Promise((r) => setTimeout(r, 50));
    assertStatus(await ctl.api.get('/version', { api: 'root', freshConnection: true }), 200);
  });
});

describe('TLS', () => {
  it('offers TLS 1.2 only with forward secrecy (ECDHE)', async () => {
    await assert.rejects(
      tlsConnect({ maxVersion: 'TLSv1.2', ciphers: 'AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES128-SHA' }),
    );
    const ok = await tlsConnect({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' });
    assert.equal(ok.getCipher().name, 'ECDHE-RSA-AES128-GCM-SHA256');
    ok.destroy();
  });
});
