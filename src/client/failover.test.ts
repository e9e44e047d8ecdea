import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { NoControllerAnsweredError } from './failover.js';
import { createApiClient } from './http.js';
import { tlsFixture } from './testing/tls-fixture.js';
import { TransportError } from './types.js';
import { ApiError } from '../protocol/errors.js';

/** A controller of the network as far as failover sees it: what it received, and how it answers. */
interface Node {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

const answers: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true},"meta":{}}');
};
/** Takes the whole request, then drops the connection without a word: a controller that died mid-request. */
const resetsAfterReading: Behaviour = (req) => req.socket.destroy();
const storeUnavailable: Behaviour = (_req, res) => {
  const body = { error: { code: 'STORE_UNAVAILABLE', message: 'the database is unavailable' }, meta: {} };
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' }).end(JSON.stringify(body));
};

const servers: Server[] = [];

async function node(behaviour: Behaviour): Promise<Node> {
  const tls = tlsFixture();
  const seen: string[] = [];
  const server = createServer({ key: tls.serverKeyPem, cert: tls.serverChainPem }, (req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      behaviour(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `https://localhost:${port}`, seen, close };
}

/** The URL of a port nothing listens on: connecting is refused. */
async function closedPort(): Promise<string> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `https://localhost:${port}`;
}

const client = (urls: string[], onFailover?: (url: string) => void) =>
  createApiClient({ baseUrl: urls[0], fallbackUrls: urls.slice(1), caPem: tlsFixture().caBundlePem, onFailover });

describe('failover between the controllers of a profile', () => {
  let down: string;
  before(async () => {
    down = await closedPort();
  });
  // Also closes the servers of a test whose assertion failed before it closed them.
  after(() => {
    for (const server of servers) server.close().closeAllConnections();
  });

  it('a controller that refuses the connection: the next one answers, and is used from then on', async () => {
    const up = await node(answers);
    const told: string[] = [];
    const api = client([down, up.url], (url) => void told.push(url));
    assert.deepEqual(await api.get('/identities'), { ok: true });
    assert.deepEqual(told, [up.url]);
    assert.equal(api.baseUrl, up.url);
    await api.get('/services');
    assert.deepEqual(up.seen, ['GET /edge/management/v1/identities', 'GET /edge/management/v1/services']);
    assert.deepEqual(told, [up.url], 'the controller in use is told once, when it changes');
    await up.close();
  });

  it('a write is made again elsewhere when its connection was refused: nothing of it was sent', async () => {
    const up = await node(answers);
    await client([down, up.url]).post('/identities', { name: 'x' });
    assert.deepEqual(up.seen, ['POST /edge/management/v1/identities']);
    await up.close();
  });

  it('a write is never made again once it may have reached a controller (reset after sending)', async () => {
    const dying = await node(resetsAfterReading);
    const up = await node(answers);
    await assert.rejects(client([dying.url, up.url]).post('/identities', { name: 'x' }), (err: unknown) => {
      assert.ok(err instanceof TransportError && !(err instanceof NoControllerAnsweredError), String(err));
      assert.match(err.message, /closed unexpectedly/);
      return true;
    });
    assert.deepEqual(dying.seen, ['POST /edge/management/v1/identities'], 'exactly one write reached a controller');
    assert.deepEqual(up.seen, []);
    await Promise.all([dying.close(), up.close()]);
  });

  it('a read is made again after a reset', async () => {
    const dying = await node(resetsAfterReading);
    const up = await node(answers);
    assert.deepEqual(await client([dying.url, up.url]).get('/identities'), { ok: true });
    assert.deepEqual([dying.seen.length, up.seen.length], [1, 1]);
    await Promise.all([dying.close(), up.close()]);
  });

  it('503 STORE_UNAVAILABLE: a read goes to the next controller, a write is answered with it', async () => {
    const unavailable = await node(storeUnavailable);
    const up = await node(answers);
    assert.deepEqual(await client([unavailable.url, up.url]).get('/identities'), { ok: true });
    await assert.rejects(client([unavailable.url, up.url]).post('/identities', {}), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 'STORE_UNAVAILABLE');
      return true;
    });
    assert.deepEqual(up.seen, ['GET /edge/management/v1/identities'], 'the write was not made on the second');
    await Promise.all([unavailable.close(), up.close()]);
  });

  it('when every controller fails, one error lists each and why', async () => {
    const dying = await node(resetsAfterReading);
    const err = await client([down, dying.url])
      .get('/identities')
      .then(
        () => assert.fail('no controller should have answered'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof NoControllerAnsweredError);
    assert.ok(err instanceof TransportError, 'the exit code of a connection failure');
    const port = (url: string) => new URL(url).port;
    assert.equal(
      err.message,
      'no controller could serve the request:\n' +
        `  ${down}: cannot connect to localhost:${port(down)}: connection refused ` +
        `(${down}/edge/management/v1/identities)\n` +
        `  ${dying.url}: connection to ${dying.url} closed unexpectedly (${dying.url}/edge/management/v1/identities)`,
    );
    await dying.close();
  });

  it('a single controller fails as before: its own error, not a list', async () => {
    await assert.rejects(client([down]).get('/identities'), (err: unknown) => {
      assert.ok(err instanceof TransportError && !(err instanceof NoControllerAnsweredError));
      assert.match(err.message, /^cannot connect to .*: connection refused/);
      return true;
    });
  });
});
