// What a shutdown does to the connections it finds: a connection made just before it, whose first request is still
// on its way, gets that request answered (with `connection: close`) instead of a reset after sending it; an idle
// connection that has served a request is closed at once; a connection that never sends anything does not hold the
// shutdown past a short wait.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import tls from 'node:tls';
import { FIRST_REQUEST_WAIT_MS } from '../../src/controller/server/drain.js';
import { startTestController, type TestController } from '../helpers/controller.js';

const VERSION = 'GET /edge/management/v1/version HTTP/1.1\r\nhost: localhost\r\n\r\n';

/** A TLS connection to the controller, past its handshake, and everything it receives until it closes. */
async function connect(ctl: TestController) {
  const socket = tls.connect({ host: '127.0.0.1', port: ctl.port, ca: ctl.caPem, servername: 'localhost' });
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<{ received: string; error?: string }>((resolve) => {
    let error: string | undefined;
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    socket.on('close', () => resolve({ received, error }));
  });
  await once(socket, 'secureConnect');
  return { socket, closed, received: () => received };
}

describe('connections at shutdown', () => {
  const running: TestController[] = [];
  after(async () => {
    for (const ctl of running) await ctl.close();
  });
  const start = async () => {
    const ctl = await startTestController();
    running.push(ctl);
    return ctl;
  };

  it('a connection made before the shutdown gets its first request answered, then closed', async () => {
    const ctl = await start();
    const fresh = await connect(ctl);
    const closing = ctl.close();
    // The request leaves after the shutdown began: the listener is closed, the connection is not.
    await new Promise((resolve) => setTimeout(resolve, 50));
    fresh.socket.write(VERSION);
    const { received, error } = await fresh.closed;
    await closing;
    assert.equal(error, undefined, `no reset: ${received}`);
    assert.match(received, /^HTTP\/1\.1 200 /, received);
    assert.match(received, /\r\nconnection: close\r\n/i, received);
  });

  it('an idle connection that served a request is closed at once, one that never sends is not waited for', async () => {
    const ctl = await start();
    const served = await connect(ctl);
    served.socket.write(VERSION);
    while (!served.received().includes('"data"')) await new Promise((resolve) => setTimeout(resolve, 10));
    const silent = await connect(ctl);
    const began = Date.now();
    const closing = ctl.close();
    const servedEnd = await served.closed;
    const servedAfter = Date.now() - began;
    await closing;
    const closedAfter = Date.now() - began;
    await silent.closed;
    assert.ok(servedAfter < FIRST_REQUEST_WAIT_MS, `the served idle connection closed at once (${servedAfter} ms)`);
    assert.equal(servedEnd.received.match(/HTTP\/1\.1 /g)?.length, 1, 'nothing more was sent on it');
    assert.ok(
      closedAfter >= FIRST_REQUEST_WAIT_MS - 50 && closedAfter < FIRST_REQUEST_WAIT_MS + 3_000,
      `the silent connection held the shutdown for the first-request wait only (${closedAfter} ms)`,
    );
  });
});
