/**
 * The controller in-process, without a socket: `createController()` and `inject()`, for tests that exercise
 * handlers by the hundred (the conformance suite). The same pipeline as over HTTPS: routing, authentication,
 * validation, the store (SQLite or a fresh PostgreSQL database), one error path. Every response is validated
 * against OpenZiti's Swagger, as over HTTPS.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { createController, type Controller } from '../../src/controller/index.js';
import { TEST_PASSWORD_COST, sharedTestPki } from './fixtures.js';
import { createTestDatabase, type StoreKind } from './postgres.js';
import { BASE_PATHS, hasOperation, validateResponse } from './spec.js';

export interface Reply {
  status: number;
  body: any;
  /** What inject() answered with (clients made by hand for one test may leave them out). */
  headers?: Record<string, string | string[] | number | undefined>;
}

export interface Client {
  request(method: string, path: string, opts?: { json?: unknown; query?: string }): Promise<Reply>;
}

export interface TestApp {
  app: Controller;
  admin: Client;
  anonymous: Client;
  /** A logged-in identity that is not an admin. */
  user: Client;
  close(): Promise<void>;
}

const MANAGEMENT = '/edge/management/v1';

function client(app: Controller, token: string | undefined): Client {
  return {
    async request(method, path, opts = {}) {
      const url = `${path.startsWith('/edge/') ? '' : MANAGEMENT}${path}${opts.query ? `?${opts.query}` : ''}`;
      const headers: Record<string, string> = token ? { 'zt-session': token } : {};
      if (opts.json !== undefined) headers['content-type'] = 'application/json';
      const res = await app.inject({
        method,
        url,
        headers,
        payload: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      });
      const body = res.body ? JSON.parse(res.body) : undefined;
      // Every answer must be what OpenZiti's Swagger says the operation answers (test/helpers/spec.ts); routes it does
      // not have (a controller's own detail, 405 for a verb a resource lacks) have nothing to be checked against.
      const api = url.startsWith('/edge/client/') ? 'client' : 'management';
      const route = url.slice(BASE_PATHS[api].length).split('?')[0];
      if (hasOperation(api, method, route)) validateResponse(api, method, route, res.statusCode, body);
      return { status: res.statusCode, body, headers: res.headers };
    },
  };
}

async function login(app: Controller, username: string, password: string): Promise<string> {
  const res = await client(app, undefined).request('POST', '/authenticate', {
    query: 'method=password',
    json: { username, password },
  });
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

/** The key a controller sharing its database is started with (it seals the PKI it keeps there). */
async function sharedDatabaseKeyFile(): Promise<string> {
  const file = path.join(await sharedTestPki(), 'shared-database.key');
  await writeFile(file, 'a-key-of-more-than-thirty-two-bytes-for-in-process-tests', { mode: 0o600 });
  return file;
}

/** `sharedDatabase`: opened as one of several controllers sharing its PostgreSQL database. */
export async function createTestApp(store: StoreKind, opts: { sharedDatabase?: boolean } = {}): Promise<TestApp> {
  const database = store === 'postgres' ? await createTestDatabase({ migrated: true }) : undefined;
  const adminPassword = `Admin-${randomBytes(6).toString('hex')}`;
  const pkiKeyFile = opts.sharedDatabase ? await sharedDatabaseKeyFile() : undefined;
  const app = await createController({
    dataDir: '/nonexistent',
    publicUrl: 'https://127.0.0.1:1',
    pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] }),
    store: database ? { postgres: database.url } : { sqlite: ':memory:' },
    sharedDatabase: opts.sharedDatabase,
    pkiKeyFile,
    adminPassword,
    passwordCost: TEST_PASSWORD_COST,
  });
  const admin = client(app, await login(app, 'admin', adminPassword));
  const userId = (
    await admin.request('POST', '/identities', { json: { name: 'conformance-user', type: 'User', isAdmin: false } })
  ).body.data.id;
  await admin.request('POST', '/authenticators', {
    json: { method: 'updb', identityId: userId, username: 'conformance-user', password: 'User-password-1' },
  });
  const user = client(app, await login(app, 'conformance-user', 'User-password-1'));
  return {
    app,
    admin,
    anonymous: client(app, undefined),
    user,
    async close() {
      await app.close();
      await database?.drop();
    },
  };
}
