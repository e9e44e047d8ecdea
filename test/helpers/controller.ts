/**
 * The real controller, started in-process on a random port with a temporary data directory, and an HTTPS client
 * that verifies the server against the controller's CA bundle and checks EVERY response it sees against the
 * OpenZiti spec (test/helpers/spec.ts) and against the controller's own served spec (served-spec.ts). No mocks.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { startController } from '../../src/controller/index.js';
import type { ControllerOptions, RunningController } from '../../src/controller/types.js';
import { TEST_PASSWORD_COST, testPkiCopy } from './fixtures.js';
import { createTestDatabase } from './postgres.js';
import { BASE_PATHS, type ApiName, checkErrorEnvelope, validateResponse, validateServerRootResponse } from './spec.js';
import { checkServedResponse } from './served-spec.js';

export type ApiTarget = ApiName | 'root';

export interface HttpResponse<T = any> {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the response is JSON, otherwise the text. */
  body: T;
  text: string;
}

export type QueryValue = string | number | boolean | Array<string | number> | undefined;

export interface RequestOptions {
  /** Which API base the path is under; `root` = the server root. Default: the helper's API (management). */
  api?: ApiTarget;
  query?: Record<string, QueryValue>;
  /** A JSON body (serialised here, content-type application/json). */
  json?: unknown;
  /** A raw body, sent as-is (content-type application/json unless given in headers). */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Override the helper's token for this request; null sends none. */
  token?: string | null;
  /**
   * The route is deliberately not in the spec (unknown-route tests): the response must then be an error and is
   * checked as the standard error envelope instead of against an operation.
   */
  unlisted?: boolean;
  /** Permit a 5xx (never by default: a 500 is always a defect). */
  allow5xx?: boolean;
  /** Open a new connection for this request instead of reusing a kept-alive one (connection-level tests). */
  freshConnection?: boolean;
}

export type AuthScheme = 'zt-session' | 'bearer';

/** A small HTTPS client for tests. Every response is validated against the spec before it is returned. */
export class HttpHelper {
  constructor(
    readonly baseUrl: string,
    readonly caPem: string,
    readonly token: string | null = null,
    readonly defaultApi: ApiName = 'management',
    readonly scheme: AuthScheme = 'zt-session',
  ) {}

  /** The same controller, with a session token (sent as `zt-session`, or as `Authorization: Bearer`). */
  as(token: string | null, scheme: AuthScheme = 'zt-session'): HttpHelper {
    return new HttpHelper(this.baseUrl, this.caPem, token, this.defaultApi, scheme);
  }

  /** The same controller and token, with another default API. */
  on(api: ApiName): HttpHelper {
    return new HttpHelper(this.baseUrl, this.caPem, this.token, api, this.scheme);
  }

  anonymous(): HttpHelper {
    return this.as(null);
  }

  /** Full path for a request: base path of the API + path + query. */
  urlPath(pathname: string, opts: RequestOptions = {}): string {
    const api = opts.api ?? this.defaultApi;
    const prefix = api === 'root' ? '' : BASE_PATHS[api];
    let full = `${prefix}${pathname}`;
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
      else qs.append(k, String(v));
    }
    const q = qs.toString();
    if (q) full += (full.includes('?') ? '&' : '?') + q;
    return full;
  }

  async request<T = any>(method: string, pathname: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    const api = opts.api ?? this.defaultApi;
    const fullPath = this.urlPath(pathname, opts);
    const headers: Record<string, string> = { accept: 'application/json', ...lowerKeys(opts.headers ?? {}) };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token !== null) {
      if (this.scheme === 'bearer') headers.authorization ??= `Bearer ${token}`;
      else headers['zt-session'] ??= token;
    }
    let payload: Buffer | undefined;
    if (opts.json !== undefined) payload = Buffer.from(JSON.stringify(opts.json));
    else if (opts.body !== undefined) payload = Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    if (payload !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const raw = await httpsRequest(this.baseUrl, this.caPem, method, fullPath, headers, payload, opts.freshConnection);
    const res = parseResponse<T>(raw, `${method} ${fullPath}`);
    const what = `${method.toUpperCase()} ${fullPath} -> ${res.status}`;
    if (!opts.allow5xx) {
      assert.ok(
        res.status < 500,
        `${what}: the server answered with a 5xx (never acceptable): ${res.text.slice(0, 2000)}`,
      );
    }
    if (method.toUpperCase() === 'OPTIONS') {
      // CORS preflight is not an operation of the spec; an error, if any, must still be the standard envelope.
      if (res.status >= 400) checkErrorEnvelope(res.status, res.body, what);
    } else if (opts.unlisted) {
      assert.ok(res.status >= 400, `${what}: expected an error for an unlisted route`);
      checkErrorEnvelope(res.status, res.body, what);
    } else if (api === 'root') {
      validateServerRootResponse(method, fullPath, res.status, res.body);
    } else {
      validateResponse(api, method, fullPath, res.status, res.body);
    }
    // And against the document the controller itself serves (test/helpers/served-spec.ts).
    if (!opts.unlisted) await checkServedResponse(this, api, method, fullPath, res.status, res.body);
    return res;
  }

  get<T = any>(p: string, opts?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('GET', p, opts);
  }
  delete<T = any>(p: string, opts?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('DELETE', p, opts);
  }
  post<T = any>(p: string, json?: unknown, opts?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('POST', p, { ...opts, ...(json === undefined ? {} : { json }) });
  }
  put<T = any>(p: string, json?: unknown, opts?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('PUT', p, { ...opts, ...(json === undefined ? {} : { json }) });
  }
  patch<T = any>(p: string, json?: unknown, opts?: RequestOptions): Promise<HttpResponse<T>> {
    return this.request<T>('PATCH', p, { ...opts, ...(json === undefined ? {} : { json }) });
  }

  /** Authenticates with a password and returns the session token (asserting the documented success shape). */
  async login(username: string, password: string, api: ApiName = this.defaultApi): Promise<string> {
    const res = await this.request('POST', '/authenticate', {
      api,
      query: { method: 'password' },
      json: { username, password },
      token: null,
    });
    assert.equal(res.status, 200, `login of ${username} on the ${api} API failed: ${res.text}`);
    const token = res.body?.data?.token;
    assert.equal(typeof token, 'string', 'data.token is a string');
    assert.equal(res.headers['zt-session'], token, 'the zt-session response header carries the token');
    return token as string;
  }

  /** Logs in and returns a helper scoped to the new session. */
  async loginAs(username: string, password: string, api: ApiName = this.defaultApi): Promise<HttpHelper> {
    return this.as(await this.login(username, password, api));
  }
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  data: Buffer;
}

const agents = new Map<string, https.Agent>();

/**
 * One keep-alive agent per controller and trust: tests reuse TLS connections as real clients do, instead of paying
 * a handshake per request. A controller that closes ends its connections; the agent opens new ones if asked.
 */
function keepAliveAgent(baseUrl: string, caPem: string): https.Agent {
  const key = `${baseUrl}\n${caPem}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca: caPem });
    agents.set(key, agent);
  }
  return agent;
}

/** One HTTPS request with real certificate verification against `caPem`. */
export function httpsRequest(
  baseUrl: string,
  caPem: string,
  method: string,
  fullPath: string,
  headers: Record<string, string>,
  payload?: Buffer,
  freshConnection = false,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const req = https.request(
      {
        protocol: 'https:',
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        method,
        path: fullPath,
        headers,
        ca: caPem,
        rejectUnauthorized: true,
        agent: freshConnection ? false : keepAliveAgent(baseUrl, caPem),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          settled = true;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, data: Buffer.concat(chunks) });
        });
        res.on('error', (err) => {
          if (!settled) reject(err);
        });
      },
    );
    req.on('error', (err) => {
      // A server may answer (413) and close before the whole body is written; the answer is what counts.
      if (!settled) reject(new Error(`${method} ${fullPath}: ${err.message}`, { cause: err }));
    });
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function parseResponse<T>(raw: RawResponse, what: string): HttpResponse<T> {
  const text = raw.data.toString('utf8');
  const type = String(raw.headers['content-type'] ?? '');
  let body: any = text;
  if (/[/+]json\b/i.test(type) && text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch (err) {
      assert.fail(
        `${what}: content-type ${type} but the body is not JSON (${(err as Error).message}): ${text.slice(0, 500)}`,
      );
    }
  }
  return { status: raw.status, headers: raw.headers, body: body as T, text };
}

// ---------------------------------------------------------------------------------------------------------------

export interface TestController {
  url: string;
  port: number;
  /** A file holding the controller's CA bundle (what `ctl login --ca` takes). */
  caFile: string;
  caPem: string;
  adminUser: string;
  adminPassword: string;
  dataDir: string;
  /** Anonymous helper (management API by default). */
  api: HttpHelper;
  running: RunningController;
  /** A helper logged in as the default admin (one session, created on first use). */
  admin(): Promise<HttpHelper>;
  /** Lines the controller logged (for diagnostics). */
  logs: string[];
  close(): Promise<void>;
}

export function randomPassword(): string {
  return `Pw-${randomBytes(12).toString('base64url')}`;
}

/** A name that is unique across tests and runs, e.g. `unique('laptop')` -> `laptop-1f3a9c`. */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Which store the end-to-end tests run against: `CTL_TEST_STORE=postgres` (set by scripts/test.mjs) or SQLite. */
export function storeUnderTest(): 'sqlite' | 'postgres' {
  return process.env.CTL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}

export async function startTestController(options: Partial<ControllerOptions> = {}): Promise<TestController> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-test-'));
  const dataDir = options.dataDir ?? path.join(tmp, 'data');
  const adminPassword = options.adminPassword ?? randomPassword();
  const logs: string[] = [];
  const database =
    storeUnderTest() === 'postgres' && !options.storeUrl ? await createTestDatabase({ migrated: true }) : undefined;
  const running = await startController({
    port: 0,
    adminUser: 'admin',
    passwordCost: TEST_PASSWORD_COST,
    // A test that names its data directory looks inside it: it gets a PKI of its own there.
    ...(options.dataDir || options.pkiDir ? {} : { pkiDir: await testPkiCopy(tmp) }),
    ...(database ? { storeUrl: database.url } : {}),
    ...options,
    dataDir,
    adminPassword,
    log: (line) => {
      logs.push(line);
      if (process.env.CTL_TEST_LOG) process.stderr.write(`[controller] ${line}\n`);
    },
  });
  const caFile = path.join(tmp, 'ca.pem');
  await writeFile(caFile, running.caBundlePem, { mode: 0o600 });
  const api = new HttpHelper(running.url, running.caBundlePem);
  let adminHelper: Promise<HttpHelper> | undefined;
  let closed = false;
  return {
    url: running.url,
    port: running.port,
    caFile,
    caPem: running.caBundlePem,
    adminUser: running.adminUser,
    adminPassword,
    dataDir,
    api,
    running,
    logs,
    admin: () => (adminHelper ??= api.loginAs(running.adminUser, adminPassword)),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await running.close();
        await database?.drop();
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Small shared assertions

/** Asserts an error response: status, code, and (optionally) the cause's field. Returns the error object. */
export function assertError(res: HttpResponse, status: number, code: string, field?: string): Record<string, any> {
  const ctx = `${res.status} ${res.text.slice(0, 800)}`;
  assert.equal(res.status, status, `expected HTTP ${status} ${code}, got ${ctx}`);
  assert.equal(res.body?.error?.code, code, `expected code ${code}, got ${ctx}`);
  if (field !== undefined) {
    assert.ok(
      res.body.error.cause && typeof res.body.error.cause === 'object',
      `expected a cause naming ${field}: ${ctx}`,
    );
    assert.equal(res.body.error.cause.field, field, `expected cause.field ${field}: ${ctx}`);
    assert.equal(typeof res.body.error.cause.reason, 'string', `cause.reason is a string: ${ctx}`);
  }
  return res.body.error;
}

export function assertStatus(res: HttpResponse, status: number, what = ''): void {
  assert.equal(
    res.status,
    status,
    `${what ? `${what}: ` : ''}expected HTTP ${status}, got ${res.status} ${res.text.slice(0, 800)}`,
  );
}

/** POST /identities and return the new id (asserting the documented 201 shape). */
export async function createIdentity(api: HttpHelper, body: Record<string, unknown>): Promise<string> {
  const res = await api.post('/identities', { type: 'User', isAdmin: false, ...body }, { api: 'management' });
  assertStatus(res, 201, `create identity ${JSON.stringify(body)}`);
  return res.body.data.id as string;
}

/** Creates a non-admin identity with a updb authenticator; returns its id, username and password. */
export async function createUser(
  admin: HttpHelper,
  opts: { name?: string; isAdmin?: boolean } = {},
): Promise<{ id: string; name: string; username: string; password: string; authenticatorId: string }> {
  const name = opts.name ?? unique('user');
  const id = await createIdentity(admin, { name, isAdmin: opts.isAdmin ?? false });
  const username = `${name}-login`;
  const password = randomPassword();
  const res = await admin.post(
    '/authenticators',
    { method: 'updb', identityId: id, username, password },
    { api: 'management' },
  );
  assertStatus(res, 201, 'create updb authenticator');
  return { id, name, username, password, authenticatorId: res.body.data.id };
}

/** The certificate the server presents (leaf), as PEM, read from a verified TLS handshake. */
export function serverCertificatePem(baseUrl: string, caPem: string): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(url.port),
        ca: caPem,
        servername: isIpHost(url.hostname) ? undefined : url.hostname,
      },
      () => {
        const cert = socket.getPeerCertificate();
        socket.end();
        const b64 = cert.raw.toString('base64').replace(/(.{64})/g, '$1\n');
        resolve(`-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`);
      },
    );
    socket.on('error', reject);
  });
}

function isIpHost(h: string): boolean {
  return /^[\d.]+$/.test(h) || h.includes(':') || h.startsWith('[');
}

/** Milliseconds between an ISO timestamp and an expected instant (absolute). */
export function msFrom(iso: string, expected: number): number {
  return Math.abs(Date.parse(iso) - expected);
}

/** A controller and its admin for the tests of one `describe`, started before them and closed after. */
export function useTestController(): { ctl: TestController; admin: HttpHelper } {
  const fixture = {} as { ctl: TestController; admin: HttpHelper };
  before(async () => {
    fixture.ctl = await startTestController();
    fixture.admin = await fixture.ctl.admin();
  });
  after(async () => fixture.ctl?.close());
  return fixture;
}
