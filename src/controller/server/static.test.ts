import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inject } from 'light-my-request';
import { ApiError } from '../../protocol/errors.js';
import { createController, type Controller } from '../index.js';
import { loadOrCreatePki } from '../pki/pki.js';
import { TEST_PASSWORD_COST, sharedTestPki } from '../../../test/helpers/fixtures.js';
import { contentTypeFor, createStaticSite, safeSegments, StaticSiteError } from './static.js';

const INDEX = '<!doctype html><title>console</title>';

/** A console build in miniature, a secret beside it that no request may reach, and a link pointing at it. */
function makeSite(): { base: string; dir: string } {
  const base = mkdtempSync(join(tmpdir(), 'ctl-static-'));
  const dir = join(base, 'console');
  mkdirSync(join(dir, 'assets', 'icons'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'main.abc123.js'), 'console.log("main")');
  writeFileSync(join(dir, 'styles.css'), 'body{}');
  writeFileSync(join(dir, 'assets', 'icons', 'favicon.ico'), Buffer.from([0, 0, 1, 0]));
  writeFileSync(join(dir, 'assets', 'font.woff2'), Buffer.from('wOF2'));
  writeFileSync(join(dir, 'assets', 'data.unknownext'), 'x');
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  writeFileSync(join(base, 'secret.txt'), 'top secret');
  symlinkSync(join(base, 'secret.txt'), join(dir, 'leak.txt'));
  symlinkSync(base, join(dir, 'up'));
  writeFileSync(join(dir, 'inside-target.js'), 'ok');
  symlinkSync(join(dir, 'inside-target.js'), join(dir, 'inside-link.js'));
  return { base, dir };
}

describe('the console directory served under /zac/ through the whole pipeline', () => {
  let site: { base: string; dir: string };
  let app: Controller;
  let plain: Server;
  const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
    app.inject({ method, url, headers });
  /**
   * The request path exactly as written: the injector (like a browser) resolves `..` and `%2e%2e` before sending,
   * a hostile client does not. A plain HTTP listener in this process hands the pipeline the raw target.
   */
  const raw = (path: string) =>
    new Promise<{ statusCode: number; body: string; json(): any }>((resolve, reject) => {
      const port = (plain.address() as AddressInfo).port;
      request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body, json: () => JSON.parse(body) }));
      })
        .on('error', reject)
        .end();
    });

  before(async () => {
    site = makeSite();
    app = await createController({
      dataDir: '/nonexistent',
      publicUrl: 'https://127.0.0.1:1',
      pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] }),
      store: { sqlite: ':memory:' },
      adminPassword: 'static-admin-pw',
      passwordCost: TEST_PASSWORD_COST,
      consoleDir: site.dir,
    });
    plain = createServer((req, res) => void app.handle(req, res));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => plain.close(resolve));
    await app.close();
    rmSync(site.base, { recursive: true, force: true });
  });

  test('files come with the content type of their extension and nosniff', async () => {
    const cases: [string, string][] = [
      ['/zac/index.html', 'text/html; charset=utf-8'],
      ['/zac/main.abc123.js', 'text/javascript; charset=utf-8'],
      ['/zac/styles.css', 'text/css; charset=utf-8'],
      ['/zac/assets/icons/favicon.ico', 'image/x-icon'],
      ['/zac/assets/font.woff2', 'font/woff2'],
      ['/zac/assets/data.unknownext', 'application/octet-stream'],
    ];
    for (const [url, type] of cases) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], type, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
    }
    const js = await get('/zac/main.abc123.js');
    assert.equal(js.body, 'console.log("main")');
    assert.equal(js.headers['content-length'], String(Buffer.byteLength('console.log("main")')));
    const empty = await get('/zac/empty.txt');
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.body, '');
  });

  test('/zac redirects to /zac/, which is the page; HEAD has headers and no body', async () => {
    const bare = await get('/zac');
    assert.equal(bare.statusCode, 301);
    assert.equal(bare.headers.location, '/zac/');
    const root = await get('/zac/');
    assert.equal(root.statusCode, 200);
    assert.equal(root.body, INDEX);
    assert.equal(root.headers['cache-control'], 'no-cache');
    const head = await get('/zac/main.abc123.js', {}, 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-length'], String(Buffer.byteLength('console.log("main")')));
  });

  test('client-side routes get the page; missing assets are 404, not the page', async () => {
    for (const url of [
      '/zac/identities',
      '/zac/identities/abc-123',
      '/zac/login?returnUrl=x',
      '/zac/assets',
      '//zac//services/',
    ]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', url);
    }
    for (const url of ['/zac/missing.js', '/zac/assets/nope.css', '/zac/identities/x.png']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().error.code, 'NOT_FOUND', url);
    }
  });

  test('traversal is refused, encoded or not, and nothing outside the directory is served', async () => {
    for (const url of [
      '/zac/../secret.txt',
      '/zac/assets/../../secret.txt',
      '/zac/%2e%2e/secret.txt',
      '/zac/%2E%2E/%2E%2E/etc/passwd',
      '/zac/..%2fsecret.txt',
      '/zac/assets/..%5c..%5csecret.txt',
      '/zac/%00index.html',
      '/zac/./index.html',
      '/zac/%2e/index.html',
    ]) {
      const res = await raw(url);
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().error.code, 'COULD_NOT_VALIDATE', url);
      assert.ok(!res.body.includes('top secret'), url);
    }
    // Links that leave the directory count as absent; a link inside it is served.
    for (const url of ['/zac/leak.txt', '/zac/up/secret.txt', '/zac/.env', '/zac/%zz']) {
      const res = await raw(url);
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${url}: ${res.statusCode}`);
      assert.ok(!res.body.includes('top secret') && !res.body.includes('SECRET'), url);
    }
    assert.equal((await get('/zac/inside-link.js')).body, 'ok');
  });

  test('only GET and HEAD; revalidation answers 304; the APIs are untouched', async () => {
    const post = await get('/zac/index.html', {}, 'POST');
    assert.equal(post.statusCode, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
    const first = await get('/zac/styles.css');
    const again = await get('/zac/styles.css', { 'if-none-match': String(first.headers.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal((await get('/edge/management/v1/version')).statusCode, 200);
    assert.equal((await get('/zacx')).statusCode, 404);
  });
});

test('a console directory without index.html fails at once, naming the directory', () => {
  const base = mkdtempSync(join(tmpdir(), 'ctl-static-'));
  try {
    assert.throws(
      () => createStaticSite(base),
      (err: unknown) => err instanceof StaticSiteError && err.message.includes(base),
    );
    assert.throws(() => createStaticSite(join(base, 'absent')), StaticSiteError);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('serve() on raw paths: literal dot segments refused; files over the size bound not served', async () => {
  const { base, dir } = makeSite();
  writeFileSync(join(dir, 'big.js'), 'x'.repeat(2048));
  const logged: string[] = [];
  const site = createStaticSite(dir, { maxFileBytes: 1024, log: (l) => logged.push(l) });
  try {
    // The raw path goes to serve() directly, whatever URL the injector makes of it.
    const serve = (path: string) =>
      inject(
        (req, res) =>
          void site.serve(req, res, path).catch((err: ApiError) => {
            res.statusCode = err.status;
            res.end(err.code);
          }),
        { method: 'GET', url: '/zac/' },
      );
    for (const path of [
      '/zac/../secret.txt',
      '/zac/assets/../../secret.txt',
      '/zac/./index.html',
      '/zac/up/../../secret.txt',
    ]) {
      const res = await serve(path);
      assert.equal(res.statusCode, 400, path);
      assert.equal(res.body, 'COULD_NOT_VALIDATE', path);
    }
    const big = await serve('/zac/big.js');
    assert.equal(big.statusCode, 404);
    assert.match(logged.join('\n'), /big\.js is 2048 bytes, over the 1024-byte limit/);
    assert.equal((await serve('/zac/main.abc123.js')).statusCode, 200);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('segments and content types, unit by unit', () => {
  assert.deepEqual(safeSegments('a/b%20c//d.js'), ['a', 'b c', 'd.js']);
  assert.throws(() => safeSegments('a/%2e%2e/b'), ApiError);
  assert.throws(() => safeSegments('a%2fb'), ApiError);
  assert.equal(contentTypeFor('X.SVG'), 'image/svg+xml');
  assert.equal(contentTypeFor('noext'), 'application/octet-stream');
});
