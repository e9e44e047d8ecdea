// `ctl controller start` as a child process: the generated admin password is printed once (first start only),
// the controller answers HTTPS with a certificate chain that verifies against the CA it serves, SIGTERM exits 0,
// data and PKI survive a restart, an acknowledged write survives kill -9, and CTL_ADMIN_PASSWORD sets the password.
import { storeEnvFor } from '../helpers/postgres.js';
import { controllerProcesses } from '../helpers/controller-process.js';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type ChildProcess, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { stat } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import forge from 'node-forge';
import { CTL_BIN, ctlEnv, runCtl } from '../helpers/cli.js';
import { HttpHelper, assertError, assertStatus, createIdentity, randomPassword } from '../helpers/controller.js';
import { REPO_ROOT } from '../helpers/spec.js';
import { freePort } from '../helpers/ports.js';
import { readState } from '../../src/cli/controller/state.js';

interface Running {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const controllers = controllerProcesses();

async function newDataDir(): Promise<string> {
  return path.join(await controllers.tmpDir('ctl-lifecycle-'), 'data');
}

/** GET without verification: only to learn that the port answers (trust is established from /cacerts after). */
function probe(port: number, p: string): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: p, method: 'GET', rejectUnauthorized: false, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function startProcess(
  dataDir: string,
  port: number,
  env: Record<string, string | undefined> = {},
  extra: string[] = [],
): Running {
  const child = spawn(
    process.execPath,
    [CTL_BIN, 'controller', 'start', '--data-dir', dataDir, '--port', String(port), ...extra],
    {
      cwd: REPO_ROOT,
      env: ctlEnv({ env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  controllers.track(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, port, url: `https://127.0.0.1:${port}`, output: () => out, exited };
}

/** Starts `ctl controller start` and waits until it answers HTTPS (a guard, not a timing assertion). */
async function start(dataDir: string, env: Record<string, string | undefined> = {}): Promise<Running> {
  assert.ok((await stat(CTL_BIN)).isFile(), 'bin/ctl.js exists (run npm run build)');
  const port = await freePort();
  const r = startProcess(dataDir, port, { ...(await storeEnvFor(dataDir)), ...env });
  let exitedEarly: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void r.exited.then((e) => (exitedEarly = e));
  for (let i = 0; i < 600; i++) {
    if (exitedEarly) assert.fail(`ctl controller start exited early (${JSON.stringify(exitedEarly)}):\n${r.output()}`);
    try {
      const res = await probe(port, '/edge/client/v1/version');
      if (res.status === 200) return r;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  r.child.kill('SIGKILL');
  assert.fail(`ctl controller start did not answer on port ${port}:\n${r.output()}`);
}

async function stop(
  r: Running,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  r.child.kill(signal);
  const e = await r.exited;
  return e;
}

/** The CA bundle the controller serves at /.well-known/est/cacerts (trust on first use), as PEM. */
async function servedCaPem(r: Running): Promise<string> {
  const res = await probe(r.port, '/.well-known/est/cacerts');
  assert.equal(res.status, 200, res.text);
  const asn1 = forge.asn1.fromDer(forge.util.decode64(res.text.replace(/\s+/g, '')));
  const signedData = ((asn1.value as forge.asn1.Asn1[])[1]!.value as forge.asn1.Asn1[])[0]!;
  const certs = (signedData.value as forge.asn1.Asn1[]).find(
    (f) => f.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && f.type === 0,
  );
  assert.ok(certs, 'certificates in the PKCS#7 store');
  return (certs.value as forge.asn1.Asn1[])
    .map((c) => new X509Certificate(Buffer.from(forge.asn1.toDer(c).getBytes(), 'binary')).toString())
    .join('');
}

/** A verified, spec-validating HTTP helper for the child controller. */
async function helperFor(r: Running): Promise<HttpHelper> {
  return new HttpHelper(r.url, await servedCaPem(r));
}

/** Finds the generated password in the output: the line after (or the rest of) the line announcing it. */
function generatedPassword(output: string): string | undefined {
  const lines = output.split('\n');
  const i = lines.findIndex((l) => /password/i.test(l) && /generat/i.test(l));
  if (i < 0) return undefined;
  const after = lines[i]!.split(/:\s*/).slice(1).join(':').trim();
  const candidate = after && !/\s/.test(after) ? after : lines[i + 1]?.trim();
  return candidate || undefined;
}

/** Polls until `get` yields a value, failing if the process exits first (a hang guard, not a timing assertion). */
async function waitFor<T>(get: () => T | undefined, r: Running, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = get();
    if (v !== undefined) return v;
    if (r.child.exitCode !== null || r.child.signalCode !== null) break;
    await sleep(50);
  }
  assert.fail(`${what} never appeared in the output:\n${r.output()}`);
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** A create whose body is sent in two parts: the second when `finish` is called. Resolves with the status. */
function slowCreate(port: number, token: string, name: string): { finish(): Promise<number> } {
  const body = JSON.stringify({ name, type: 'User', isAdmin: false });
  const length = String(Buffer.byteLength(body));
  const headers = { 'content-type': 'application/json', 'content-length': length, 'zt-session': token };
  const path = '/edge/management/v1/identities';
  const options = { host: '127.0.0.1', port, path, method: 'POST', headers, rejectUnauthorized: false, agent: false };
  const req = https.request(options);
  const status = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write(body.slice(0, 10));
  return {
    finish() {
      req.end(body.slice(10));
      return status;
    },
  };
}

describe('ctl controller start', () => {
  it('first start shows the admin password once; TLS verifies; SIGTERM 0; restart keeps all; Ctrl-C 130', async () => {
    const dataDir = await newDataDir();
    const first = await start(dataDir);
    const api = await helperFor(first);
    assertStatus(await api.get('/version'), 200);
    const password = await waitFor(() => generatedPassword(first.output()), first, 'a generated admin password');
    const admin = await api.loginAs('admin', password);
    const id = await createIdentity(admin, { name: 'survivor', roleAttributes: ['keep'] });
    const firstCa = api.caPem;

    const dirMode = (await stat(dataDir)).mode & 0o777;
    assert.equal(dirMode, 0o700, `data directory mode ${dirMode.toString(8)}`);

    const e1 = await stop(first);
    assert.deepEqual(e1, { code: 0, signal: null }, `SIGTERM exits 0:\n${first.output()}`);
    // the whole output is known once the process has exited
    assert.equal(occurrences(first.output(), password), 1, `the password is printed exactly once:\n${first.output()}`);
    assert.doesNotMatch(first.output(), /\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace in the output');

    const second = await start(dataDir);
    const api2 = await helperFor(second);
    assert.equal(api2.caPem, firstCa, 'the same CA bundle after a restart');
    const admin2 = await api2.loginAs('admin', password);
    const got = await admin2.get(`/identities/${id}`);
    assertStatus(got, 200);
    assert.equal(got.body.data.name, 'survivor');
    assert.deepEqual(got.body.data.roleAttributes, ['keep']);
    assert.deepEqual(await stop(second), { code: 0, signal: null });
    assert.ok(!second.output().includes(password), `the password is not printed again:\n${second.output()}`);
    assert.equal(generatedPassword(second.output()), undefined, 'no new password is generated');

    // Ctrl-C shuts down as cleanly as SIGTERM, but says it was interrupted: exit 130, as every ctl command.
    const third = await start(dataDir);
    await helperFor(third);
    assert.deepEqual(await stop(third, 'SIGINT'), { code: 130, signal: null }, third.output());
    assert.match(third.output(), /SIGINT: shutting down/);
    assert.equal(readState(dataDir), undefined, 'the state file is removed: the shutdown was clean');
  });

  it('nothing acknowledged is lost on kill -9', async () => {
    const dataDir = await newDataDir();
    const password = randomPassword();
    const first = await start(dataDir, { CTL_ADMIN_PASSWORD: password });
    const admin = await (await helperFor(first)).loginAs('admin', password);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createIdentity(admin, { name: `acked-${i}` }));
    assertStatus(await admin.patch(`/identities/${ids[0]}`, { roleAttributes: ['patched'] }), 200);
    assertStatus(await admin.delete(`/identities/${ids[4]}`), 200);
    const e = await stop(first, 'SIGKILL');
    assert.equal(e.signal, 'SIGKILL');

    const second = await start(dataDir);
    const admin2 = await (await helperFor(second)).loginAs('admin', password);
    for (const id of ids.slice(0, 4))
      assertStatus(await admin2.get(`/identities/${id}`), 200, `identity ${id} survived`);
    assert.deepEqual((await admin2.get(`/identities/${ids[0]}`)).body.data.roleAttributes, ['patched']);
    assertError(await admin2.get(`/identities/${ids[4]}`), 404, 'NOT_FOUND');
    assert.deepEqual(await stop(second), { code: 0, signal: null });
  });

  it('SIGTERM with requests in flight: each is answered, or its write is not applied; exit 0', async () => {
    const dataDir = await newDataDir();
    const password = randomPassword();
    const first = await start(dataDir, { CTL_ADMIN_PASSWORD: password });
    const admin = await (await helperFor(first)).loginAs('admin', password);
    // One client is still sending its body when the signal comes: a request in flight for certain.
    const slow = slowCreate(first.port, admin.token!, 'in-flight-slow');
    await sleep(300);
    let signalledAt = 0;
    const creates = Array.from({ length: 24 }, (_, i) => {
      const name = `in-flight-${i}`;
      const sent = admin.post('/identities', { name, type: 'User', isAdmin: false }, { freshConnection: true });
      return sent.then(
        (res) => ({ name, status: res.status, afterSignal: signalledAt > 0 }),
        () => ({ name, status: 0, afterSignal: true }),
      );
    });
    // The first answer means the others are on their way or being handled: stop now.
    await Promise.race(creates);
    signalledAt = Date.now();
    first.child.kill('SIGTERM');
    await sleep(300);
    const slowStatus = await slow.finish();
    const slowResult = { name: 'in-flight-slow', status: slowStatus, afterSignal: true };
    const results = [...(await Promise.all(creates)), slowResult];
    assert.equal(slowStatus, 201, `a body that arrives after SIGTERM is still answered:\n${first.output()}`);
    assert.deepEqual(await first.exited, { code: 0, signal: null }, first.output());
    const answeredLate = results.some((r) => r.status === 201 && r.afterSignal);
    assert.ok(answeredLate, `requests in flight at SIGTERM are answered: ${JSON.stringify(results)}`);

    const second = await start(dataDir);
    const admin2 = await (await helperFor(second)).loginAs('admin', password);
    for (const r of results) {
      const found = await admin2.get('/identities', { query: { filter: `name = "${r.name}"` } });
      const stored = found.body.meta.pagination.totalCount === 1;
      assert.ok(r.status === 201 ? stored : !stored, `${r.name}: answered ${r.status}, stored ${stored}`);
    }
    assert.deepEqual(await stop(second), { code: 0, signal: null });
  });

  it('CTL_ADMIN_PASSWORD sets the admin password (and it is not printed)', async () => {
    const dataDir = await newDataDir();
    const password = randomPassword();
    const r = await start(dataDir, { CTL_ADMIN_PASSWORD: password });
    const api = await helperFor(r);
    await api.login('admin', password);
    assertError(
      await api.post('/authenticate', { username: 'admin', password: 'admin' }, { query: { method: 'password' } }),
      401,
      'INVALID_AUTH',
    );
    assert.deepEqual(await stop(r), { code: 0, signal: null });
    assert.ok(!r.output().includes(password), 'a password given by the operator is not echoed');
    assert.equal(generatedPassword(r.output()), undefined, 'nothing is generated');
  });

  it('a port in use: "port N is in use", exit 1, nothing written, and the next start shows the password', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const dataDir = await newDataDir();
    try {
      // No admin password given: a first start that wrote its generated password and then died would lock the
      // admin out. The port is checked before anything is written.
      const r = startProcess(dataDir, port, await storeEnvFor(dataDir));
      const e = await r.exited;
      assert.equal(e.code, 1, r.output());
      assert.match(r.output(), new RegExp(`port ${port} is in use`));
      assert.doesNotMatch(r.output(), /bug in ctl|\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace, not called a bug');
      assert.doesNotMatch(r.output(), /generated password/);
      assert.equal(existsSync(path.join(dataDir, 'ctl.db')), false, 'no database was written');
      assert.equal(existsSync(path.join(dataDir, 'pki')), false, 'no PKI was written');
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    const next = await start(dataDir);
    assert.ok(generatedPassword(next.output()), `the next start shows the generated password:\n${next.output()}`);
    await stop(next);
  });

  it('the CLI logs in to the started controller with the CA it serves', async () => {
    const dataDir = await newDataDir();
    const password = randomPassword();
    const r = await start(dataDir, { CTL_ADMIN_PASSWORD: password });
    const configDir = path.join(await controllers.tmpDir('ctl-cli-'), 'config');
    const login = await runCtl(['login', r.url, '-u', 'admin', '--password-stdin', '--yes'], {
      configDir,
      stdin: `${password}\n`,
    });
    assert.equal(login.code, 0, login.stderr);
    const list = await runCtl(['identity', 'list', '-o', 'json'], { configDir });
    assert.equal(list.code, 0, list.stderr);
    JSON.parse(list.stdout);
    assert.deepEqual(await stop(r), { code: 0, signal: null });
  });
});
