// The transport's HTTP/1.1 against servers that answer byte for byte as told: framing by length, in chunks and by
// closing, informational answers, kept and refused connections, and the failures a user must be told about.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tlsFixture } from './testing/tls-fixture.js';
import { createTransport, mayHaveBeenSent, type Transport } from './transport.js';

const fx = tlsFixture();

/** A TLS server that reads each request's head and answers with what `answer` returns for it, written as given. */
interface Raw {
  url: string;
  /** The connections made to it so far. */
  connections: number;
  /** The request heads it read, in order. */
  requests: string[];
  server: Server;
}

async function rawServer(answer: (head: string, socket: TLSSocket) => void): Promise<Raw> {
  const raw: Raw = { url: '', connections: 0, requests: [], server: undefined as unknown as Server };
  raw.server = createServer({ key: fx.serverKeyPem, cert: fx.serverChainPem }, (socket) => {
    raw.connections++;
    let pending = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.slice(end + 4 + length);
        raw.requests.push(head);
        answer(head, socket);
      }
    });
  });
  await new Promise<void>((resolve) => raw.server.listen(0, '127.0.0.1', resolve));
  raw.url = `https://localhost:${(raw.server.address() as { port: number }).port}`;
  return raw;
}

const get = (timeoutMs = 5000) => ({ method: 'GET', headers: {}, signal: AbortSignal.timeout(timeoutMs) });

describe('HTTP/1.1 over the transport', () => {
  let transport: Transport;
  const servers: Server[] = [];
  const serve = async (answer: (head: string, socket: TLSSocket) => void) => {
    const raw = await rawServer(answer);
    servers.push(raw.server);
    return raw;
  };
  before(() => {
    transport = createTransport({ ca: fx.caBundlePem });
  });
  after(async () => {
    await transport.close();
    for (const server of servers) server.close();
  });

  it('reads an answer framed by its length, and sends the next request on the same connection', async () => {
    const raw = await serve((_, socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello'));
    const first = await transport.send(new URL(`${raw.url}/edge/v1/x?filter=a`), get());
    assert.deepEqual(first, { status: 200, headers: { 'content-length': '5', 'x-a': '1' }, text: 'hello' });
    assert.equal((await transport.send(new URL(`${raw.url}/y`), get())).text, 'hello');
    assert.equal(raw.connections, 1);
    assert.match(raw.requests[0], /^GET \/edge\/v1\/x\?filter=a HTTP\/1\.1\r\nhost: localhost:\d+\r\n/);
  });

  it('reads a chunked answer, its chunks split across writes, with trailers, and keeps the connection', async () => {
    const raw = await serve((_, socket) => {
      const parts = [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel',
        'lo\r\n',
        '7;ext=1\r\n, world',
        '\r\n',
      ];
      parts.push('0\r\nX-Trailer: t\r\n\r\n');
      for (const part of parts) socket.write(part);
    });
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'hello, world');
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'hello, world');
    assert.equal(raw.connections, 1);
  });

  it('reads what a node:https server sends in chunks, UTF-8 across chunk boundaries', async () => {
    const server = createHttpsServer({ key: fx.serverKeyPem, cert: fx.serverChainPem }, (_, res) => {
      const text = Buffer.from('{"name":"名前テスト"}');
      res.write(text.subarray(0, 12));
      setImmediate(() => res.end(text.subarray(12)));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`https://localhost:${(server.address() as { port: number }).port}/x`);
    const answer = await transport.send(url, get());
    assert.equal(answer.text, '{"name":"名前テスト"}');
    assert.equal(answer.headers['transfer-encoding'], 'chunked');
  });

  it('reads an answer that ends with its connection, then opens another', async () => {
    const raw = await serve((_, socket) => socket.end('HTTP/1.1 200 OK\r\nX-B: 1\r\nX-B: 2\r\n\r\nuntil the end'));
    const answer = await transport.send(new URL(`${raw.url}/x`), get());
    assert.deepEqual(answer, { status: 200, headers: { 'x-b': '1, 2' }, text: 'until the end' });
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'until the end');
    assert.equal(raw.connections, 2);
  });

  it('skips informational answers, reads none of a 204 nor of a HEAD, and closes on `connection: close`', async () => {
    const raw = await serve((head, socket) => {
      if (head.startsWith('HEAD')) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n');
      if (head.startsWith('DELETE')) return void socket.write('HTTP/1.1 204 No Content\r\n\r\n');
      socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n');
      socket.write('Connection: close\r\n\r\nok');
    });
    const send = (method: string) => transport.send(new URL(`${raw.url}/x`), { ...get(), method });
    assert.deepEqual(await send('HEAD'), { status: 200, headers: { 'content-length': '9' }, text: '' });
    assert.deepEqual(await send('DELETE'), { status: 204, headers: {}, text: '' });
    assert.equal(raw.connections, 1);
    assert.equal((await send('GET')).text, 'ok');
    assert.equal((await send('GET')).status, 200);
    assert.equal(raw.connections, 2, 'the connection the server closed was not used again');
  });

  it("keeps an HTTP/1.0 answer's connection only when the server says keep-alive", async () => {
    const raw = await serve((head, socket) => {
      const keep = head.startsWith('GET /keep') ? 'Connection: keep-alive\r\n' : '';
      socket.write(`HTTP/1.0 200 OK\r\nContent-Length: 2\r\n${keep}\r\nok`);
    });
    const send = (path: string) => transport.send(new URL(`${raw.url}${path}`), get());
    assert.equal((await send('/keep')).text, 'ok');
    assert.equal((await send('/keep')).text, 'ok');
    assert.equal(raw.connections, 1);
    assert.equal((await send('/once')).text, 'ok');
    assert.equal((await send('/once')).text, 'ok');
    assert.equal(raw.connections, 2, 'an answer without keep-alive was the last on its connection');
  });

  it("frames a request's body by its length, and a POST without one by a zero length", async () => {
    const raw = await serve((_, socket) => socket.write('HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n'));
    const url = new URL(`${raw.url}/x`);
    await transport.send(url, { ...get(), method: 'DELETE', body: '[{"a":"é"}]' });
    await transport.send(url, { ...get(), method: 'POST' });
    assert.match(raw.requests[0], /\r\ncontent-length: 12$/);
    assert.match(raw.requests[1], /^POST \/x HTTP\/1\.1\r\n[\s\S]*\r\ncontent-length: 0$/);
  });

  it('keeps a connection without keeping the process alive, and holds it while it carries a request', async () => {
    // The connections that keep the process alive: the server's side of each is unreferenced below.
    const liveSockets = () => process.getActiveResourcesInfo().filter((type) => type === 'TCPSocketWrap').length;
    let hold = false;
    let held = () => {};
    const raw = await serve((_, socket) => {
      socket.unref();
      const answer = () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      if (hold) held = answer;
      else answer();
    });
    const before = liveSockets();
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'ok');
    assert.equal(liveSockets(), before, 'the kept connection leaves the process free to exit');
    hold = true;
    const second = transport.send(new URL(`${raw.url}/x`), get());
    await delay(50);
    assert.equal(liveSockets(), before + 1, 'a request in flight keeps the process alive');
    held();
    assert.equal((await second).text, 'ok');
    assert.equal(raw.connections, 1);
  });

  it('opens a new connection when the server closed the kept one', async () => {
    const raw = await serve((_, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => socket.end(), 20);
    });
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'ok');
    await delay(200);
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'ok');
    assert.equal(raw.connections, 2);
  });

  it('drops a kept connection on which the server sent what nothing asked for', async () => {
    const raw = await serve((_, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstale!'), 20);
    });
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'ok');
    await delay(200);
    assert.equal((await transport.send(new URL(`${raw.url}/x`), get())).text, 'ok');
    assert.equal(raw.connections, 2);
  });

  it('fails as a connection closed unexpectedly when the answer stops short, after sending', async () => {
    const raw = await serve((_, socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort'));
    await assert.rejects(transport.send(new URL(`${raw.url}/x`), get()), (err: NodeJS.ErrnoException) => {
      assert.equal(err.code, 'ECONNRESET');
      assert.ok(mayHaveBeenSent(err), 'the request reached the server');
      return true;
    });
  });

  it('refuses an answer that is not HTTP/1.1, and a chunk that does not end where its size says', async () => {
    for (const bytes of [
      'SSH-2.0-OpenSSH\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n',
    ]) {
      const raw = await serve((_, socket) => socket.write(bytes));
      await assert.rejects(transport.send(new URL(`${raw.url}/x`), get()), (err: NodeJS.ErrnoException) => {
        assert.equal(err.code, 'ERR_CTL_MALFORMED_ANSWER');
        assert.match(err.message, /^the answer is not valid HTTP\/1\.1 \(/);
        return true;
      });
    }
  });

  it('closes a connection whose answer it refused, which would keep the process alive', { timeout: 5000 }, async () => {
    let closed: Promise<unknown> = Promise.resolve();
    const raw = await serve((_, socket) => {
      closed = once(socket, 'close');
      socket.write('SSH-2.0-OpenSSH\r\n\r\n');
    });
    await assert.rejects(transport.send(new URL(`${raw.url}/x`), get()), { code: 'ERR_CTL_MALFORMED_ANSWER' });
    await closed;
  });

  it('refuses a head that never ends', async () => {
    const raw = await serve((_, socket) => socket.write(`HTTP/1.1 200 OK\r\nX: ${'x'.repeat(70 * 1024)}`));
    await assert.rejects(transport.send(new URL(`${raw.url}/x`), get()), /head is too large/);
  });

  it('ends the exchange at the deadline with its reason, the connection closed', async () => {
    const raw = await serve(() => {});
    await assert.rejects(transport.send(new URL(`${raw.url}/x`), get(100)), { name: 'TimeoutError' });
    assert.equal(raw.connections, 1);
  });

  it('sends nothing when a header value holds a line break', async () => {
    const raw = await serve((_, socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const headers = { 'zt-session': 'token\r\nx-admin: true' };
    await assert.rejects(transport.send(new URL(`${raw.url}/x`), { ...get(), headers }), /invalid character/);
    await delay(50);
    assert.deepEqual(raw.requests, []);
  });

  it('reports a refused connection as never sent, so that a write may go to another controller', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const write = { ...get(), method: 'POST', body: '{}' };
    await assert.rejects(
      transport.send(new URL(`https://127.0.0.1:${port}/x`), write),
      (err: NodeJS.ErrnoException) => {
        assert.equal(err.code, 'ECONNREFUSED');
        assert.ok(!mayHaveBeenSent(err));
        return true;
      },
    );
  });
});
