import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { sendError, sendReply } from './respond.js';

/** Answers each request with `answer`, and returns what a client read: status, headers and body. */
async function served(method: string, answer: Parameters<typeof createServer>[1]) {
  const server = createServer(answer).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const req = request({ host: '127.0.0.1', port, method, path: '/' }).end();
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  } finally {
    server.close();
  }
}

test('an envelope is sent with its status, media type and length in bytes, the length answering HEAD too', async () => {
  const data = { name: 'né à Zürich', tags: {} };
  const text = JSON.stringify({ data, meta: {} });
  const get = await served('GET', (_req, res) => sendReply(res, { status: 201, data, headers: { 'x-extra': 'yes' } }));
  assert.equal(get.status, 201);
  assert.equal(get.headers['content-type'], 'application/json');
  assert.equal(get.headers['content-length'], String(Buffer.byteLength(text)));
  assert.equal(get.headers['x-extra'], 'yes');
  assert.equal(get.body, text);
  const head = await served('HEAD', (_req, res) => sendReply(res, { data }));
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String(Buffer.byteLength(text)));
  assert.equal(head.body, '');
});

test('an error is its envelope, with the headers set before it was thrown', async () => {
  const res = await served('GET', (_req, response) => {
    response.setHeader('expiration-seconds', '1800');
    sendError(response, new ApiError('UNAUTHORIZED'), 'req-1');
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers['expiration-seconds'], '1800');
  assert.match(String(res.headers['www-authenticate']), /^zt-session /);
  const body = JSON.parse(res.body);
  assert.equal(body.error.code, 'UNAUTHORIZED');
  assert.equal(body.error.requestId, 'req-1');
  assert.equal(res.headers['content-length'], String(Buffer.byteLength(res.body)));
});
