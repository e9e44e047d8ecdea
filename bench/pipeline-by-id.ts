// What the controller's own pipeline costs for an authenticated GET /identities/{id}, in-process and in a loop:
// `handle()` given node's request and response objects without a socket, so routing, the authentication stage, the
// handler (the store's read included), the serialisation and node's header assembly are measured, and TLS, the
// HTTP parser and the send are not. The controller's CPU per request (`npm run bench -- --throughput-only`) is the
// figure that counts; this one shows the pipeline's part of it without the network's noise. It asserts nothing
// but that every answer is a 200 of the same length.
//
// Usage: node --import tsx bench/pipeline-by-id.ts [REQUESTS] [--root DIR]
//   REQUESTS  requests per round (default 20000), five rounds
//   --root    the checkout whose controller to use (default: this one), e.g. a baseline made by bench/baseline.ts;
//             run the two one after the other, twice or more, and compare lines of the same sitting
// The controller is bundled with esbuild as `npm run build` bundles it (tsx would wrap every inner function in a
// naming helper the build does not have), into the checkout's node_modules, where its packages are found.
import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import type { createController as CreateController } from '../src/controller/index.js';

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { root: { type: 'string' } } });
const requests = Number(positionals[0] ?? 20_000);
const root = flags.root ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bundle = path.join(root, 'node_modules', '.ctl-bench', 'pipeline-controller.mjs');
await build({
  absWorkingDir: root,
  entryPoints: [path.join(root, 'src/controller/index.ts')],
  outfile: bundle,
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const { createController } = (await import(pathToFileURL(bundle).href)) as {
  createController: typeof CreateController;
};
const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-bench-pipeline-'));
const password = 'bench-admin-password';
const controller = await createController({
  dataDir: dir,
  publicUrl: 'https://127.0.0.1:1280',
  adminPassword: password,
});
const MANAGEMENT = '/edge/management/v1';
const login = await controller.inject({
  method: 'POST',
  url: `${MANAGEMENT}/authenticate?method=password`,
  headers: { 'content-type': 'application/json' },
  payload: JSON.stringify({ username: 'admin', password }),
});
const token = login.json().data.token as string;
const created = await controller.inject({
  method: 'POST',
  url: `${MANAGEMENT}/identities`,
  headers: { 'content-type': 'application/json', 'zt-session': token },
  payload: JSON.stringify({ name: 'bench-identity', type: 'Default', isAdmin: false, roleAttributes: ['sales'] }),
});
const url = `${MANAGEMENT}/identities/${created.json().data.id as string}`;
const socket = new Socket();

/** One GET through the pipeline; answers the length of the body it would have sent. */
async function get(): Promise<number> {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = url;
  req.headers = { host: '127.0.0.1:1280', accept: 'application/json', 'zt-session': token };
  const res = new ServerResponse(req);
  await controller.handle(req, res);
  if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}`);
  return Number(res.getHeader('content-length'));
}

const expected = await get();
const perRequest: number[] = [];
for (let round = 0; round < 5; round++) {
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i++) if ((await get()) !== expected) throw new Error('the answer changed length');
  const used = process.cpuUsage(before);
  perRequest.push((used.user + used.system) / requests);
}
await controller.close();
rmSync(dir, { recursive: true, force: true });
const sorted = [...perRequest].sort((a, b) => a - b);
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
console.log(
  `${root}: ${sorted[2].toFixed(1)} µs of CPU per GET by id, median of 5 rounds ` +
    `(${perRequest.map((us) => us.toFixed(1)).join(', ')}); ${expected} bytes; load average ${load}`,
);
