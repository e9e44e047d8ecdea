// What the security limits cost on the normal path: median latency of a password login and of an identity list
// (100 identities with tags and attributes, page of 100) against an in-process controller; and of a service
// session created on the client API (each call a new session: one service each, policies over #all).
// Usage: node --import tsx bench/limits.ts [rounds] [--root DIR] [--store postgres://...] [--json]
//   --root   the checkout whose controller to run (default: this one), e.g. an older build from bench/baseline.ts
//   --store  keep the data in this (empty) PostgreSQL database instead of SQLite
//   --json   print {"what": median ms, ...} instead of the lines below
// `npm run bench` runs it on every checkout and store it compares, alternating, and reports the medians.
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { startController as StartController } from '../src/controller/index.js';

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { root: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' } },
});
const rounds = Number(positionals[0] ?? 200);
const root = flags.root ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { startController } = (await import(pathToFileURL(path.join(root, 'src/controller/index.ts')).href)) as {
  startController: typeof StartController;
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-bench-limits-'));
const password = `Pw-${randomBytes(9).toString('base64url')}`;
const ctl = await startController({
  dataDir: path.join(dir, 'data'),
  port: 0,
  adminPassword: password,
  ...(flags.store ? { storeUrl: flags.store } : {}),
});
const agent = new https.Agent({ keepAlive: true, ca: ctl.caBundlePem, maxSockets: 1 });

function call(
  method: string,
  p: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const url = new URL(ctl.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: p,
        agent,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(token ? { 'zt-session': token } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const login = () =>
  call('POST', '/edge/management/v1/authenticate?method=password', {
    username: 'admin',
    password,
    configTypes: ['all'],
    envInfo: { os: 'linux', arch: 'x64' },
  });
const token = JSON.parse((await login()).text).data.token as string;
for (let i = 0; i < 100; i++) {
  const r = await call(
    'POST',
    '/edge/management/v1/identities',
    { name: `bench-${i}`, type: 'User', isAdmin: false, roleAttributes: ['a', 'b', 'c'], tags: { team: 'x', n: i } },
    token,
  );
  if (r.status !== 201) throw new Error(r.text);
}

async function median(what: string, n: number, work: () => Promise<{ status: number; text: string }>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const r = await work();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  results[what] = Number(p(0.5));
  if (!flags.json) console.log(`${what.padEnd(34)} n=${n}  median ${p(0.5)} ms  p90 ${p(0.9)} ms`);
}
const results: Record<string, number> = {};

// Logins are spaced out by the scrypt cost anyway; they all succeed, so the failure throttle never bites.
await median('login (password, scrypt)', Math.min(rounds, 40), login);
await median('list identities (limit 100)', rounds, () =>
  call('GET', '/edge/management/v1/identities?limit=100', undefined, token),
);
const benchFilter = encodeURIComponent('anyOf(roleAttributes) = "a" and name contains "bench"');
await median('list identities filtered', rounds, () =>
  call('GET', `/edge/management/v1/identities?filter=${benchFilter}&limit=100`, undefined, token),
);
// Within the client API's request budget of one API session (a burst of 50): the creates are not spaced out.
const SESSION_ROUNDS = Math.min(rounds, 40);
const services: string[] = [];
for (let i = 0; i < SESSION_ROUNDS; i++) {
  const r = await call('POST', '/edge/management/v1/services', { name: `svc-${i}`, encryptionRequired: true }, token);
  if (r.status !== 201) throw new Error(r.text);
  services.push(JSON.parse(r.text).data.id as string);
}
const all = ['#all'];
for (const [p, body] of [
  ['service-policies', { name: 'dial-all', type: 'Dial', semantic: 'AnyOf', identityRoles: all, serviceRoles: all }],
  ['edge-routers', { name: 'er-1' }],
  ['edge-router-policies', { name: 'erp-all', semantic: 'AnyOf', identityRoles: all, edgeRouterRoles: all }],
  ['service-edge-router-policies', { name: 'serp-all', semantic: 'AnyOf', serviceRoles: all, edgeRouterRoles: all }],
] as const) {
  const r = await call('POST', `/edge/management/v1/${p}`, body, token);
  if (r.status !== 201) throw new Error(r.text);
}
await median('create session (client API)', SESSION_ROUNDS, () =>
  call('POST', '/edge/client/v1/sessions', { serviceId: services.pop() }, token),
);
await median('create identity (validated body)', Math.min(rounds, 100), () =>
  call(
    'POST',
    '/edge/management/v1/identities',
    { name: `b-${randomBytes(6).toString('hex')}`, type: 'User', isAdmin: false, tags: { k: 'v' }, appData: { a: 1 } },
    token,
  ),
);

agent.destroy();
await ctl.close();
if (flags.json) console.log(JSON.stringify(results));
rmSync(dir, { recursive: true, force: true });
