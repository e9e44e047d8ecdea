#!/usr/bin/env node
// Walks OpenZiti's web console (ZAC) against this controller and writes what it asked for: a check by a client
// nobody here wrote. Not part of the test suite (CI has no ZAC build); run it by hand after `npm run build`.
//
//   node scripts/zac-check.mjs --zac DIR --report FILE [--screens DIR] [--port N] [--chromium PATH] [--no-create]
//                              [--shared-store postgres://...]
//
// DIR is a built console (the directory that holds its index.html, e.g. ziti-console/dist/app-ziti-console).
// It starts `ctl controller start --console DIR` on a fresh data directory, logs in through the login page with
// a headless Chromium driven by playwright-core, opens every management screen and its "create" form, then fills
// every form the console offers with realistic values, typing with key events as a person does (identity, config
// type, intercept.v1 and host.v1 configs with only their required fields, services with and without an attached
// config, routers, policies, posture check, CA with an openssl-made certificate, JWT signers with a certificate and
// with a JWKS URL, auth policy), edits and deletes each, sorts, pages and bulk-deletes a list, and opens a CA's
// verification page and an API session's details. It records every request that leaves the console's own files:
// method, path, query, status, the error code and cause of a failure and the body of each write.
// The report (markdown) lists them per screen, flags 4xx/5xx and console errors, and ends with the distinct API
// calls seen. Exit code: 0 when nothing failed, 1 when some request failed or the page logged errors, 2 on misuse.
// With --shared-store URL (an empty PostgreSQL database), two controllers serve it together (the same key file,
// --shared-database) and the console is walked through the second: what the first made at its first
// start (the PKI, the default admin) is served by the second.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const { values: args } = parseArgs({
  options: {
    zac: { type: 'string' },
    report: { type: 'string' },
    screens: { type: 'string' },
    port: { type: 'string' },
    chromium: { type: 'string', default: process.env.CHROMIUM ?? '/usr/bin/chromium' },
    'no-create': { type: 'boolean', default: false },
    'no-seed': { type: 'boolean', default: false },
    'settle-ms': { type: 'string', default: '1500' },
    'shared-store': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function usage(message) {
  if (message) process.stderr.write(`error: ${message}\n`);
  process.stderr.write(
    'usage: node scripts/zac-check.mjs --zac DIR --report FILE ' +
      '[--screens DIR] [--port N] [--chromium PATH] [--no-create] [--shared-store URL]\n',
  );
  process.exit(message ? 2 : 0);
}
if (args.help) usage();
if (!args.zac || !args.report) usage('--zac and --report are required');
const zacDir = resolve(args.zac);
if (!existsSync(join(zacDir, 'index.html'))) usage(`${zacDir} holds no index.html: give the built console's directory`);
if (!existsSync(join(REPO, 'dist', 'main.js'))) usage('ctl is not built: run `npm run build` first');
if (!existsSync(args.chromium)) usage(`no Chromium at ${args.chromium} (apt-get install chromium, or --chromium PATH)`);
const settleMs = Number(args['settle-ms']);

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch {
  usage('playwright-core is not installed: run `npm install` (it is a devDependency)');
}

/** The screens of the console's menu, by route; each is opened as a list and as its create form. */
const SCREENS = [
  { name: 'dashboard', route: 'dashboard' },
  { name: 'identities', route: 'identities', create: 'identities/create' },
  { name: 'services', route: 'services', create: 'services/advanced/create' },
  { name: 'configs', route: 'configs', create: 'configs/create' },
  { name: 'config types', route: 'config-types', create: 'config-types/create' },
  { name: 'service policies', route: 'service-policies', create: 'service-policies/create' },
  { name: 'edge router policies', route: 'router-policies', create: 'router-policies/create' },
  { name: 'service edge router policies', route: 'service-router-policies', create: 'service-router-policies/create' },
  { name: 'edge routers', route: 'routers', create: 'routers/create' },
  { name: 'transit routers', route: 'transit-routers', create: 'transit-routers/create' },
  { name: 'terminators', route: 'terminators', create: 'terminators/create' },
  { name: 'posture checks', route: 'posture-checks', create: 'posture-checks/create' },
  { name: 'attributes', route: 'attributes' },
  { name: 'sessions', route: 'sessions' },
  { name: 'api sessions', route: 'api-sessions' },
  { name: 'auth policies', route: 'auth-policies' },
  { name: 'jwt signers', route: 'jwt-signers' },
  { name: 'certificate authorities', route: 'certificate-authorities' },
];

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolvePort(port));
    });
  });
}

/**
 * `ctl controller start` on a throwaway data directory, with the console, or on the shared database when `shared`
 * names its key file; resolves once it listens.
 */
async function startController(port, password, shared) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ctl-zac-check-'));
  const env = { ...process.env, CTL_ADMIN_PASSWORD: password };
  delete env.CTL_STORE_URL;
  const sharing = shared ? ['--store', shared.url, '--pki-key-file', shared.keyFile, '--shared-database'] : [];
  const child = spawn(
    process.execPath,
    [
      join(REPO, 'bin', 'ctl.js'),
      'controller',
      'start',
      '--data-dir',
      join(dataDir, 'ctrl'),
      '--port',
      String(port),
      '--console',
      zacDir,
      ...sharing,
    ],
    {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  // The start's last line: it is serving.
  for (let i = 0; i < 600 && child.exitCode === null && !stderr.includes('data directory:'); i++) await sleep(50);
  if (!stderr.includes('data directory:')) {
    child.kill('SIGKILL');
    throw new Error(`the controller did not start:\n${stderr}`);
  }
  return {
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(join(dataDir, 'ctrl', 'ca-bundle.pem'), 'utf8'),
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Ids in paths become `{id}` so that the calls of different entities read as one. Path words are lower case with
 * hyphens (`edge-router-policies`, `v1`, the console's `undefined`); ids are mixed case or carry digits.
 */
function template(path) {
  return path
    .split('/')
    .map((seg) => (seg === '' || /^[a-z][a-z-]*$/.test(seg) || /^v\d+$/.test(seg) ? seg : '{id}'))
    .join('/');
}

/** One management API call from here (not the browser): for the seed data. */
function api(method, path, body, token) {
  return new Promise((resolveCall, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = {
      ...(token ? { 'zt-session': token } : {}),
      ...(payload ? { 'content-type': 'application/json' } : {}),
    };
    const req = request(
      `${controller.url}/edge/management/v1${path}`,
      { method, ca: controller.ca, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json = {};
          try {
            json = JSON.parse(text);
          } catch {}
          resolveCall({ status: res.statusCode, body: json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * One entity of each kind made through the API before the walk, so that the lists have a row to render (and ask
 * about), and so that editing and deleting through the forms can be tried where a form's own create fails.
 * What the controller refuses is reported, not fatal: the other branches are adding these resources.
 */
async function seed() {
  const login = await api('POST', '/authenticate?method=password', { username: 'admin', password });
  const token = login.body?.data?.token;
  const ids = {};
  const results = [];
  const make = async (key, path, body) => {
    const res = await api('POST', path, typeof body === 'function' ? body() : body, token);
    ids[key] = res.body?.data?.id;
    results.push({
      what: `${key} (${path})`,
      status: res.status,
      detail: res.status >= 400 ? errorText(res.body) : '',
    });
  };
  await make('identity', '/identities', {
    name: 'seed-identity',
    type: 'Device',
    isAdmin: false,
    roleAttributes: ['seed'],
  });
  await make('config type', '/config-types', { name: 'seed-type', schema: {} });
  await make('config', '/configs', () => ({
    name: 'seed-config',
    configTypeId: ids['config type'] ?? 'missing',
    data: {},
  }));
  await make('service', '/services', () => ({
    name: 'seed-service',
    encryptionRequired: true,
    roleAttributes: ['seed'],
    configs: ids.config ? [ids.config] : [],
  }));
  await make('edge router', '/edge-routers', {
    name: 'seed-router',
    roleAttributes: ['seed'],
    isTunnelerEnabled: false,
  });
  await make('transit router', '/transit-routers', { name: 'seed-transit' });
  await make('service policy', '/service-policies', {
    name: 'seed-dial',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#seed'],
    serviceRoles: ['#seed'],
    postureCheckRoles: [],
  });
  await make('edge router policy', '/edge-router-policies', {
    name: 'seed-erp',
    semantic: 'AnyOf',
    identityRoles: ['#seed'],
    edgeRouterRoles: ['#seed'],
  });
  await make('service edge router policy', '/service-edge-router-policies', {
    name: 'seed-serp',
    semantic: 'AnyOf',
    serviceRoles: ['#seed'],
    edgeRouterRoles: ['#seed'],
  });
  await make('posture check', '/posture-checks', { name: 'seed-mfa', typeId: 'MFA', roleAttributes: ['seed'] });
  await make('terminator', '/terminators', () => ({
    service: ids.service ?? 'missing',
    router: ids['edge router'] ?? 'missing',
    binding: 'transport',
    address: 'tcp:127.0.0.1:8080',
  }));
  // Spares that nothing references, for the forms to edit and delete where their own create fails (deleting the
  // seed type above would rightly be refused: the seed config uses it).
  const spare = {};
  const makeSpare = async (label, path, body) => {
    const res = await api('POST', path, body, token);
    spare[label] = res.body?.data?.id;
    if (res.status >= 400)
      results.push({ what: `spare ${label} (${path})`, status: res.status, detail: errorText(res.body) });
  };
  await makeSpare('identity', '/identities', { name: 'spare-identity', type: 'Device', isAdmin: false });
  await makeSpare('config type', '/config-types', { name: 'spare-type', schema: {} });
  await makeSpare('config', '/configs', {
    name: 'spare-config',
    configTypeId: ids['config type'] ?? 'missing',
    data: {},
  });
  await makeSpare('service', '/services', { name: 'spare-service', encryptionRequired: true });
  await makeSpare('transit router', '/transit-routers', { name: 'spare-transit' });
  await makeSpare('posture check', '/posture-checks', { name: 'spare-mfa', typeId: 'MFA' });
  return { ids, spare, results };
}

const errorText = (body) => {
  const e = body?.error ?? {};
  return (
    [e.code, e.cause?.field, e.cause?.reason ?? e.cause?.message].filter(Boolean).join(': ') ||
    JSON.stringify(body).slice(0, 200)
  );
};

const password = `Zac-${randomBytes(8).toString('hex')}`;
const port = args.port ? Number(args.port) : await freePort();
/** With --shared-store: the key file both controllers share, and the first of them, which the console skips. */
let shared;
let first;
if (args['shared-store']) {
  const keyFile = join(mkdtempSync(join(tmpdir(), 'ctl-zac-key-')), 'pki.key');
  writeFileSync(keyFile, randomBytes(48).toString('base64'), { mode: 0o600 });
  shared = { url: args['shared-store'], keyFile };
  first = await startController(await freePort(), password, shared);
}
const controller = await startController(port, password, shared);
const browser = await chromium.launch({
  executablePath: args.chromium,
  headless: true,
  // As root and on a closed network: no sandbox, nothing Chromium would fetch for itself.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** Everything seen, in order: { screen, method, path, query, status, code, body, failure }. */
const calls = [];
/** Console errors and uncaught exceptions, per screen. */
const pageErrors = [];
/** What each write through a form came to. */
const writes = [];
let screen = 'login';

const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 900 } });
// The console loads web fonts from the internet; this machine has none: answer at once instead of waiting.
await context.route(
  (url) => !url.hostname.startsWith('127.0.0.1'),
  (route) => route.abort(),
);
const page = await context.newPage();
page.on('console', (msg) => {
  if (msg.type() !== 'error') return;
  // A failed load is in the tables already (API calls, and the console's own files when they fail), or left this
  // machine (fonts, map tiles: aborted above).
  if (msg.text().startsWith('Failed to load resource')) return;
  pageErrors.push({ screen, text: msg.text().slice(0, 400) });
});
page.on('pageerror', (err) =>
  pageErrors.push({ screen, text: `uncaught: ${String(err.message ?? err).slice(0, 400)}` }),
);
page.on('requestfinished', (req) => void record(req));
page.on('requestfailed', (req) => void record(req, req.failure()?.errorText ?? 'failed'));

async function record(req, failure) {
  const url = new URL(req.url());
  if (url.host !== `127.0.0.1:${port}`) return;
  // The console's own files are listed only when one fails: that is the static server's doing.
  if (url.pathname.startsWith('/zac/') || url.pathname === '/zac') {
    const res = await req.response().catch(() => null);
    if (res && res.status() < 400 && !failure) return;
  }
  const entry = {
    screen,
    method: req.method(),
    path: url.pathname,
    query: url.search.slice(1),
    status: 0,
    code: '',
    body: undefined,
    failure,
  };
  calls.push(entry);
  const post = req.postData();
  if (post && req.method() !== 'GET') {
    entry.body = url.pathname.includes('authenticate') ? '(credentials)' : post.slice(0, 2000);
  }
  const res = await req.response().catch(() => null);
  if (!res) return;
  entry.status = res.status();
  if (entry.status >= 400) {
    const text = await res.text().catch(() => '');
    try {
      const error = JSON.parse(text).error ?? {};
      entry.code = [error.code, error.cause?.field, error.cause?.reason ?? error.cause?.message]
        .filter(Boolean)
        .join(': ');
    } catch {
      entry.code = text.slice(0, 120);
    }
  }
}

/** Lets the page finish what it started: network idle, then a pause for requests made after rendering. */
async function settle() {
  await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => {});
  await sleep(settleMs);
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
}

async function shot(name) {
  if (!args.screens) return;
  mkdirSync(args.screens, { recursive: true });
  await page.screenshot({ path: join(args.screens, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`) }).catch(() => {});
}

async function visit(name, route) {
  screen = name;
  await page
    .goto(`${controller.url}/zac/${route}`, { waitUntil: 'domcontentloaded' })
    .catch((err) => pageErrors.push({ screen, text: `navigation: ${err.message}` }));
  await settle();
  await shot(name);
}

/**
 * The forms tried, in an order where what a form needs already exists (a config needs a config type). Each is
 * created with only its name (and the one choice a form cannot save without), edited (its name changed), and in
 * the end deleted from its list through the row menu and the confirmation dialog.
 */
/** A form's recipe: its list (the route's first part), its create and edit routes, its name field, its API resource. */
const form = (label, route, placeholder, resource, more = {}) => ({
  label,
  list: route.split('/')[0],
  create: `${route}/create`,
  edit: (id) => `${route}/${id}`,
  placeholder,
  resource,
  ...more,
});

const RECIPES = [
  form('identity', 'identities', 'Name this identity', 'identities'),
  form('config type', 'config-types', 'Name this config', 'config-types'),
  form('config', 'configs', 'Name this config', 'configs', {
    // The type made through the form just before: its schema ({}) accepts the empty data the form starts with.
    prepare: async (made) => {
      const select = page.locator('select.config-type-select');
      if (made['config type']) return select.selectOption({ label: made['config type'] }, { timeout: 10_000 });
      // None made here (its form failed): any type there is, which may need data the empty form lacks.
      const values = await select
        .locator('option')
        .evaluateAll((options) => options.map((o) => o.value).filter(Boolean));
      if (!values.length) throw new Error('no config type to choose from');
      return select.selectOption(values[0], { timeout: 10_000 });
    },
  }),
  form('service', 'services/advanced', 'Name this Service', 'services'),
  form('edge router', 'routers', 'Name this edge router', 'edge-routers'),
  form('transit router', 'transit-routers', 'Name this transit router', 'transit-routers'),
  form('service policy', 'service-policies', 'Name this service policy', 'service-policies'),
  form('edge router policy', 'router-policies', 'Name this edge router policy', 'edge-router-policies'),
  form(
    'service edge router policy',
    'service-router-policies',
    'Name this service edge router policy',
    'service-edge-router-policies',
  ),
  form('posture check', 'posture-checks', 'Name this posture check', 'posture-checks', {
    // The MFA kind needs nothing beyond its name; the list of kinds comes from /posture-check-types.
    prepare: async () => page.locator('select#SelectedConfigType').selectOption('MFA', { timeout: 10_000 }),
  }),
  form('config (intercept.v1)', 'configs', 'Name this config', 'configs', {
    // Only the fields OpenZiti's schema requires, typed into the schema-driven form.
    prepare: async () => {
      await page.locator('select.config-type-select').selectOption({ label: 'intercept.v1' }, { timeout: 10_000 });
      // Port ranges and addresses are chip inputs: a value becomes a chip on Enter.
      const ports = page.getByPlaceholder('80 120-125 443 8080').first();
      await typeInto(ports, '443');
      await ports.press('Enter');
      const tcp = page.locator('lib-checkbox-list-input div', {
        has: page.locator('span.boxlabel', { hasText: /^tcp$/ }),
      });
      await tcp.locator('input[type=checkbox]').first().check({ timeout: 10_000 });
      const addresses = page.getByPlaceholder('enter values separated with a comma').first();
      await typeInto(addresses, 'crm.zac-check.example');
      await addresses.press('Enter');
    },
  }),
  form('config (host.v1)', 'configs', 'Name this config', 'configs', {
    prepare: async () => {
      await page.locator('select.config-type-select').selectOption({ label: 'host.v1' }, { timeout: 10_000 });
      await typeInto(page.getByPlaceholder('host.name').first(), '127.0.0.1');
      await typeInto(page.getByPlaceholder('0', { exact: true }).first(), '8443');
    },
  }),
  form('service with a config', 'services/advanced', 'Name this Service', 'services', {
    // The config drop-down lists the configs of the chosen type (`type = "<id>"`); attach the one made above.
    prepare: async (made) => {
      const config = made['config (intercept.v1)'];
      if (!config) throw new Error('no intercept.v1 config was made through its form to attach');
      await page.locator('select#SelectedConfigType').selectOption({ label: 'intercept.v1' }, { timeout: 10_000 });
      await settle();
      await page.locator('.dropdown-container mat-select').first().click({ timeout: 10_000 });
      await page.locator('mat-option', { hasText: config }).first().click({ timeout: 10_000 });
      await page.locator('.button-row-right .save-button').first().click({ timeout: 10_000 });
    },
  }),
  form('certificate authority', 'certificate-authorities', 'Name this Certificate Authority', 'cas', {
    prepare: async () => typeInto(pemArea(), pems.ca),
  }),
  form('jwt signer (certificate)', 'jwt-signers', 'Name this JWT Signer', 'external-jwt-signers', {
    prepare: async () => {
      await signerBasics('cert');
      await page.getByText('Cert PEM', { exact: true }).first().click({ timeout: 10_000 });
      await typeInto(pemArea(), pems.signer);
      await typeInto(page.getByPlaceholder('Enter KID').first(), 'zac-check-kid');
    },
    // The console opens every signer with "JWKS Endpoint" chosen (against OpenZiti too): a person picks Cert PEM again.
    prepareEdit: async () => page.getByText('Cert PEM', { exact: true }).first().click({ timeout: 10_000 }),
  }),
  form('jwt signer (jwks)', 'jwt-signers', 'Name this JWT Signer', 'external-jwt-signers', {
    prepare: async () => {
      await signerBasics('jwks');
      await page.getByText('JWKS Endpoint', { exact: true }).first().click({ timeout: 10_000 });
      await typeInto(
        page.getByPlaceholder('Enter endpoint URL').first(),
        'https://idp.example.invalid/.well-known/jwks.json',
      );
    },
  }),
  form('auth policy', 'auth-policies', 'Name this Auth Policy', 'auth-policies'),
];

const pemArea = () => page.getByPlaceholder('Paste pem contents or select file').first();
async function signerBasics(kind) {
  await typeInto(page.getByPlaceholder('Enter issuer').first(), `https://issuer-${kind}.example.invalid`);
  await typeInto(page.getByPlaceholder('Enter audience').first(), `zac-check-${kind}`);
}

/** Certificates the CA and JWT-signer forms are given, made by openssl for this run (as an operator would). */
function makePems() {
  const dir = mkdtempSync(join(tmpdir(), 'ctl-zac-pem-'));
  const make = (name, extra) => {
    const key = join(dir, `${name}.key`);
    const cert = join(dir, `${name}.pem`);
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
    const out = spawnSync('openssl', [
      ...args,
      '-subj',
      `/CN=zac-check-${name}`,
      ...extra,
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    if (out.status !== 0) throw new Error(`openssl could not make a certificate: ${out.stderr}`);
    return readFileSync(cert, 'utf8').trim();
  };
  try {
    return {
      ca: make('ca', [
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ]),
      signer: make('signer', []),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const pems = makePems();

let token;
const adminToken = async () =>
  (token ??= (await api('POST', '/authenticate?method=password', { username: 'admin', password })).body?.data?.token);

const firstLine = (err) => String(err?.message ?? err).split('\n')[0];
const isWriteTo = (resource, methods) => (res) =>
  methods.includes(res.request().method()) && new URL(res.url()).pathname.replace(/\/+$/, '').includes(`/${resource}`);

/**
 * Types as a person does: one key event per character, so that forms which react to typing (key-up validation,
 * debounced filters) see what they would see. `fill()` only sets the value.
 */
async function typeInto(locator, text) {
  await locator.fill('', { timeout: 10_000 });
  await locator.pressSequentially(text, { delay: 5, timeout: 20_000 });
}

/** Waits for the write a click starts; returns { status, body } or throws when none came. */
async function clickAndCatch(locator, predicate) {
  const answered = page.waitForResponse(predicate, { timeout: 15_000 });
  await locator.click({ timeout: 10_000 });
  const res = await answered;
  return { status: res.status(), body: await res.json().catch(() => ({})) };
}

function noteWrite(what, result, id) {
  const detail = result.status >= 400 ? errorText(result.body) : id ? `id ${id}` : '';
  writes.push({ what, status: result.status, detail });
}

async function createThroughForm(recipe, name, made) {
  const what = `${recipe.label}: create`;
  await visit(what, recipe.create);
  try {
    await typeInto(page.getByPlaceholder(recipe.placeholder).first(), name);
    if (recipe.prepare) await recipe.prepare(made);
    const result = await clickAndCatch(page.locator('.save-button').first(), isWriteTo(recipe.resource, ['POST']));
    const id = result.body?.data?.id;
    noteWrite(what, result, id);
    await settle();
    await shot(`${what} saved`);
    return id;
  } catch (err) {
    writes.push({ what, status: 0, detail: `no create request: ${firstLine(err)}` });
    await shot(`${what} failed`);
    return undefined;
  }
}

async function editThroughForm(recipe, id, name) {
  const what = `${recipe.label}: edit`;
  await visit(what, recipe.edit(id));
  try {
    await typeInto(page.getByPlaceholder(recipe.placeholder).first(), name);
    if (recipe.prepareEdit) await recipe.prepareEdit();
    const result = await clickAndCatch(
      page.locator('.save-button').first(),
      (res) => ['PUT', 'PATCH'].includes(res.request().method()) && res.url().includes(id),
    );
    noteWrite(what, result);
    await settle();
    return result.status < 400;
  } catch (err) {
    writes.push({ what, status: 0, detail: `no update request: ${firstLine(err)}` });
    await shot(`${what} failed`);
    return false;
  }
}

/** From the list: filter by name (the console's filter request), the row's menu, Delete, Yes. */
async function deleteFromList(recipe, name) {
  const what = `${recipe.label}: delete`;
  await visit(what, recipe.list);
  try {
    // The filter bar reacts to key-up (debounced), so type rather than paste.
    await typeInto(page.getByPlaceholder('Type to Filter').first(), name);
    await settle();
    // The grid pins the menu column in a container of its own: the same row there has the same row-index.
    const index = await page
      .locator('.ag-center-cols-container .ag-row', { hasText: name })
      .first()
      .getAttribute('row-index', { timeout: 10_000 });
    await page.locator(`.ag-row[row-index="${index}"] .dots`).first().click({ timeout: 10_000 });
    await page.locator('#TableActionButton_delete').first().click({ timeout: 10_000 });
    const result = await clickAndCatch(
      page.getByRole('button', { name: 'Yes' }).first(),
      isWriteTo(recipe.resource, ['DELETE']),
    );
    noteWrite(what, result);
    await settle();
  } catch (err) {
    writes.push({ what, status: 0, detail: `no delete request: ${firstLine(err)}` });
    await shot(`${what} failed`);
  }
}

/** A click that should make the console ask the controller for something; records what it was, or that none came. */
async function tryAction(what, act, predicate) {
  screen = what;
  try {
    const answered = page.waitForResponse(predicate, { timeout: 15_000 });
    await act();
    const res = await answered;
    writes.push({
      what,
      status: res.status(),
      detail: res.status() >= 400 ? errorText(await res.json().catch(() => ({}))) : '',
    });
    await settle();
  } catch (err) {
    writes.push({ what, status: 0, detail: `no request: ${firstLine(err)}` });
    await shot(`${what} failed`);
  }
}

const listRequest = (resource, test) => (res) => {
  const url = new URL(res.url());
  return res.request().method() === 'GET' && url.pathname.endsWith(`/${resource}`) && test(url.searchParams);
};

/**
 * What a person does on the lists besides the forms: sort by a column, page forward, select rows and delete them
 * together, open a CA's verification page and a session's and an API session's details.
 */
async function listInteractions(token) {
  // Enough identities for a second page, three of them to delete together.
  for (let i = 0; i < 60; i++)
    await api(
      'POST',
      '/identities',
      { name: `zac-page-${String(i).padStart(2, '0')}`, type: 'Device', isAdmin: false },
      token,
    );
  for (let i = 0; i < 3; i++)
    await api('POST', '/identities', { name: `zac-bulk-${i}`, type: 'Device', isAdmin: false }, token);

  await visit('identities: sort', 'identities');
  await tryAction(
    'identities: sort by name',
    () =>
      page
        .locator('.ag-header-cell-text', { hasText: /^Name$/ })
        .first()
        .click({ timeout: 10_000 }),
    listRequest('identities', (q) => (q.get('sort') ?? '').startsWith('name')),
  );
  await tryAction(
    'identities: next page',
    () => page.locator('.navigate.next').first().click({ timeout: 10_000 }),
    listRequest('identities', (q) => Number(q.get('offset') ?? 0) > 0),
  );

  await visit('identities: bulk delete', 'identities');
  try {
    await typeInto(page.getByPlaceholder('Type to Filter').first(), 'zac-bulk-');
    await settle();
    for (let i = 0; i < 3; i++)
      await page.locator(`[name="RowSelect0_zac-bulk-${i}"]`).first().click({ timeout: 10_000 });
    await page.locator('.icon-delete[data-action="delete"]').first().click({ timeout: 10_000 });
    const deletes = [];
    const onResponse = (res) => res.request().method() === 'DELETE' && deletes.push(res.status());
    page.on('response', onResponse);
    await page.getByRole('button', { name: 'Yes' }).first().click({ timeout: 10_000 });
    await settle();
    page.off('response', onResponse);
    const bad = deletes.filter((status) => status >= 400);
    writes.push({
      what: 'identities: bulk delete of 3',
      status: deletes.length === 3 && !bad.length ? 200 : (bad[0] ?? 0),
      detail: `${deletes.length} DELETE requests: ${deletes.join(', ')}`,
    });
  } catch (err) {
    writes.push({ what: 'identities: bulk delete of 3', status: 0, detail: `no delete: ${firstLine(err)}` });
    await shot('identities bulk delete failed');
  }

  const ca = await api(
    'POST',
    '/cas',
    {
      name: 'zac-verify-ca',
      certPem: pems.ca,
      isAutoCaEnrollmentEnabled: true,
      isOttCaEnrollmentEnabled: true,
      isAuthEnabled: true,
      identityRoles: [],
    },
    token,
  );
  if (ca.body?.data?.id)
    await visit('certificate authority: verify', `certificate-authorities/${ca.body.data.id}/verify`);
  else
    writes.push({
      what: 'certificate authority for verification (API)',
      status: ca.status,
      detail: errorText(ca.body),
    });
  const apiSessions = await api('GET', '/api-sessions?limit=1', undefined, token);
  const apiSession = apiSessions.body?.data?.[0]?.id;
  if (apiSession) await visit('api session: details', `api-sessions/${apiSession}`);
  const sessions = await api('GET', '/sessions?limit=1', undefined, token);
  const session = sessions.body?.data?.[0]?.id;
  // Sessions exist only where a client asked for one; without, the list was visited above and there is no detail.
  if (session) await visit('session: details', `sessions/${session}`);
}

let exitCode = 0;
/** The entities made through the API before the walk, and what the controller said to each. */
let seeded = { ids: {}, spare: {}, results: [] };
try {
  // Login: the console finds the controller at its own origin (GET /edge/management/v1/version) and offers it.
  screen = 'login, then the dashboard';
  await page.goto(`${controller.url}/zac/login`, { waitUntil: 'domcontentloaded' });
  await settle();
  await page.getByPlaceholder('Enter your admin username').fill('admin', { timeout: 15_000 });
  await page.getByPlaceholder('Enter your admin password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page
    .waitForURL((u) => !u.pathname.endsWith('/login'), { timeout: 15_000 })
    .catch(() => pageErrors.push({ screen, text: 'still on the login page after logging in' }));
  await settle();
  await shot('login');

  if (!args['no-seed']) seeded = await seed();

  for (const s of SCREENS) {
    await visit(s.name, s.route);
    if (s.create) await visit(`${s.name}: create form`, s.create);
  }

  if (!args['no-create']) {
    const stamp = randomBytes(3).toString('hex');
    const made = {};
    const created = [];
    for (const recipe of RECIPES) {
      let name = `zac-${recipe.label.replace(/[^a-z0-9]+/g, '-').replace(/-$/, '')}-${stamp}`;
      let id = await createThroughForm(recipe, name, made);
      const formMade = Boolean(id);
      if (!id && seeded.spare[recipe.label]) {
        // The form's create failed: edit and delete a spare made through the API instead.
        id = seeded.spare[recipe.label];
        name = (await api('GET', `/${recipe.resource}/${id}`, undefined, await adminToken())).body?.data?.name;
        if (!name) continue;
      } else if (!id) continue;
      const edited = await editThroughForm(recipe, id, `${name}-edited`);
      if (edited) name = `${name}-edited`;
      // What a later form chooses by name (a config's type) must be the name after the edit.
      if (formMade) made[recipe.label] = name;
      created.push({ recipe, name });
    }
    // Dependents first (a config before its type).
    for (const { recipe, name } of created.reverse()) await deleteFromList(recipe, name);
  }
  if (!args['no-create']) await listInteractions(await adminToken());
} catch (err) {
  pageErrors.push({ screen, text: `the walk stopped: ${firstLine(err)}` });
} finally {
  await browser.close().catch(() => {});
  await controller.stop();
  await first?.stop();
}

// ---- the report ----
/**
 * The console's create forms ask for relations of an entity that does not exist yet (`/identities/undefined/
 * services`); OpenZiti answers those 404 too and the console ignores them. Listed, not counted as failures.
 */
const createFormLookup = (c) => c.status === 404 && c.path.includes('/undefined/');
/**
 * On a full load of a deep link (`/zac/routers/x`), Chromium's preload scanner fetches the page's files relative to
 * that path before the page's own script has set <base href>: `/zac/routers/main.js`. The real loads that follow
 * use `/zac/main.js`. Harmless (a cheap 404); a build with `--base-href /zac/` has a static <base> and avoids them.
 */
const speculative = (c) => {
  if (c.status !== 404 || !c.path.startsWith('/zac/')) return false;
  const segments = c.path.slice('/zac/'.length).split('/');
  for (let k = 1; k < segments.length; k++) if (existsSync(join(zacDir, ...segments.slice(k)))) return true;
  return false;
};
const expected = (c) => createFormLookup(c) || speculative(c);
const failed = (c) => (c.status >= 400 || c.status === 0) && !expected(c);
/** Every page load asks for these; they are listed once, on the first screen. */
const startup = (c) =>
  c.method === 'GET' && /^\/edge\/management\/v1\/(version|current-identity)$/.test(c.path) && c.status < 400;
const firstScreen = calls[0]?.screen;
const lines = [];
const screensInOrder = [...new Set(calls.map((c) => c.screen).concat(pageErrors.map((e) => e.screen)))];
const failures = calls.filter(failed);
lines.push('# ZAC screen check', '');
lines.push(
  (first ? `Walked through the second of two controllers on one database (the first at ${first.url}). ` : '') +
    `Console: \`${zacDir}\`. ${calls.length} API requests, ${failures.length} ` +
    `failed (4xx/5xx or no answer), ${pageErrors.length} console errors.`,
  '',
);
lines.push(
  'Every page load also asks for `GET /edge/management/v1/version` and ' +
    '`GET /edge/management/v1/current-identity`: listed on the first screen only. "expected" marks ' +
    'the 404s OpenZiti gives too (a create form asking for relations of id `undefined`).',
  '',
);
if (seeded.results.length) {
  lines.push('## Seed data made through the API before the walk', '', '| entity | status | error |', '|---|---|---|');
  for (const r of seeded.results) lines.push(`| ${r.what} | ${r.status} | ${r.detail.replace(/\|/g, '\\|')} |`);
  lines.push('');
}
if (writes.length) {
  lines.push('## Writes through the forms', '', '| form | status | detail |', '|---|---|---|');
  for (const w of writes)
    lines.push(
      `| ${w.what} | ${w.status || 'none'} | ${(w.detail || (w.id ? `id ${w.id}` : '')).replace(/\|/g, '\\|')} |`,
    );
  lines.push('');
}
if (failures.length) {
  lines.push('## Failing now', '', '| method | path | status | error | screens |', '|---|---|---|---|---|');
  const byCall = new Map();
  for (const c of failures) {
    const key = `${c.method} ${template(c.path)} ${c.status || c.failure}`;
    const f = byCall.get(key) ?? { c, screens: new Set() };
    f.screens.add(c.screen.replace(/:.*/, ''));
    byCall.set(key, f);
  }
  for (const { c, screens } of byCall.values()) {
    lines.push(
      `| ${c.method} | \`${template(c.path)}\` | ${c.status || c.failure} ` +
        `| ${c.code.replace(/\|/g, '\\|')} | ${[...screens].join(', ')} |`,
    );
  }
  lines.push('');
}
lines.push('## Per screen', '');
for (const s of screensInOrder) {
  const own = calls.filter((c) => c.screen === s && (s === firstScreen || !startup(c)) && !speculative(c));
  const early = calls.filter((c) => c.screen === s && speculative(c)).length;
  const errs = pageErrors.filter((e) => e.screen === s);
  const bad = own.filter(failed).length;
  lines.push(`### ${s}${bad || errs.length ? ` — ${bad} failed, ${errs.length} console errors` : ''}`, '');
  if (own.length) {
    lines.push('| | method | path | query | status | error |', '|---|---|---|---|---|---|');
    for (const c of own) {
      const q = c.query ? `\`${decodeURIComponent(c.query).replace(/\|/g, '\\|')}\`` : '';
      lines.push(
        `| ${failed(c) ? '**FAIL**' : expected(c) ? 'expected' : ''} | ${c.method} | ` +
          `\`${c.path}\` | ${q} | ${c.status || c.failure} | ${c.code.replace(/\|/g, '\\|')} |`,
      );
    }
    lines.push('');
    for (const c of own.filter((c) => c.body !== undefined))
      lines.push(`${c.method} \`${c.path}\` body: \`${c.body.replace(/`/g, "'")}\``, '');
  }
  if (early) lines.push(`(${early} speculative loads of the page's files under the deep link: 404, expected)`, '');
  for (const e of errs) lines.push(`- console: ${e.text.replace(/\n/g, ' ')}`);
  if (errs.length) lines.push('');
}
lines.push('## Distinct API calls', '', '| method | path | statuses | screens |', '|---|---|---|---|');
const distinct = new Map();
for (const c of calls) {
  if (speculative(c)) continue;
  const key = `${c.method} ${template(c.path)}`;
  const d = distinct.get(key) ?? { statuses: new Set(), screens: new Set() };
  d.statuses.add(c.status || c.failure);
  d.screens.add(c.screen.replace(/:.*/, ''));
  distinct.set(key, d);
}
for (const [key, d] of [...distinct].sort(
  ([a], [b]) => a.split(' ')[1].localeCompare(b.split(' ')[1]) || a.localeCompare(b),
)) {
  const [method, path] = key.split(' ');
  lines.push(`| ${method} | \`${path}\` | ${[...d.statuses].join(', ')} | ${[...d.screens].join(', ')} |`);
}
lines.push('');
mkdirSync(dirname(resolve(args.report)), { recursive: true });
writeFileSync(args.report, lines.join('\n'));
process.stdout.write(
  `${calls.length} requests, ${failures.length} failed, ${pageErrors.length} console errors; report: ${args.report}\n`,
);
if (failures.length || pageErrors.length || writes.some((w) => w.status === 0 || w.status >= 400)) exitCode = 1;
process.exit(exitCode);
