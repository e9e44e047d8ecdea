import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { injectRequest } from './inject.js';

/** A handler that answers with what it was asked, so a test sees the request went through. */
async function echo(req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ method: req.method, url: req.url, from: req.socket.remoteAddress }));
}

const request = { method: 'GET', url: '/edge/management/v1/version' };

describe('injectRequest', () => {
  it('runs a request through the handler in-process', async () => {
    const res = await injectRequest(echo, request);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { method: 'GET', url: '/edge/management/v1/version', from: '127.0.0.1' });
  });

  it('says what it needs and why when light-my-request is not installed (no devDependencies)', async () => {
    // A real import of a package that is not there: node's own error, as an installed ctl would get it.
    const absent = 'light-my-request-not-installed';
    const err = await injectRequest(echo, request, () => import(absent)).then(
      () => assert.fail('inject() without light-my-request answered'),
      (e: Error) => e,
    );
    assert.match(err.message, /^inject\(\) needs light-my-request, a devDependency of ctl, and it is not installed/);
    assert.match(err.message, /runs requests in-process for tests/);
    assert.match(err.message, /npm install/);
    assert.equal((err.cause as { code?: string }).code, 'ERR_MODULE_NOT_FOUND');
  });

  it('passes a failure other than a missing module on unchanged', async () => {
    const broken = new TypeError('light-my-request failed while loading');
    await assert.rejects(
      injectRequest(echo, request, () => Promise.reject(broken)),
      (e) => e === broken,
    );
  });
});
