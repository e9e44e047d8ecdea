// Every `ctl ...` shown in README.md and docs/*.md, so that the documentation cannot drift from the program.
// Commands that can run here run for real, through bash, against a real controller, and must succeed. Synopses
// (placeholders such as NAME or [--flag]), other hosts (ctrl.example.com) and commands that start or stop a
// controller of their own cannot: for those the command path must exist and every flag shown must be one it takes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { findCommand } from '../../src/cli/help-topics.js';
import { buildProgram, run } from '../../src/cli/main.js';
import { createTestIO } from '../../src/client/testing/test-io.js';
import { testDeps } from '../../src/cli/testing/test-deps.js';
import { CTL_BIN, type LoggedInCli, ctlEnv, withLoggedInCli } from '../helpers/cli.js';
import {
  type HttpHelper,
  type TestController,
  assertStatus,
  createIdentity,
  randomPassword,
  startTestController,
} from '../helpers/controller.js';
import { REPO_ROOT } from '../helpers/spec.js';

interface Shown {
  file: string;
  line: string;
}

/** `ctl ...` lines of fenced blocks and `ctl ...` code spans, with trailing comments removed. */
function shownCommands(): Shown[] {
  const files = [
    'README.md',
    ...readdirSync(path.join(REPO_ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: Shown[] = [];
  for (const file of files) {
    let fenced = false;
    for (const raw of readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n')) {
      if (raw.startsWith('```')) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        const line = raw.replace(/\s+#\s.*$/, '').trim();
        if (/(^|\|\s*|;\s*|^(\w+=\S+\s+)+)ctl /.test(line)) out.push({ file, line });
      } else {
        for (const m of raw.matchAll(/`(ctl [^`]+)`/g)) out.push({ file, line: m[1]!.replace(/\\\|/g, '|') });
      }
    }
  }
  return out;
}

/** Cannot run here: a synopsis, another controller's address, or a command that runs a controller of its own. */
function shapeOnly(line: string): boolean {
  return (
    /\b(NOUN|VERB|ARGS|FLAGS|URL|USER|NAME|NAMES|FILE|DIR|SHA256|METHOD|PATH|JSON)\b/.test(line) ||
    /\b(CODE|PASS|DURATION|IDENTITY|SERVICE)\b|\[|\.\.\.|<[a-z ]+>/.test(line) ||
    /ctrl\.example\.com|ctrl:1280|\$PW\b|\$ZITI_/.test(line) ||
    // a profile of several controllers: the worked example runs two of its own, which this test does not start
    /https:\/\/\S+,https:\/\//.test(line) ||
    /^([A-Z_]+=\S+ )*ctl (controller|quickstart)\b/.test(line) ||
    // a bare login needs a terminal to ask; `a|b` in a code span lists alternatives
    /^ctl login( \.\.\.)?$/.test(line) ||
    /\w\|\w/.test(line) ||
    /^ctl (authenticator|enrollment|auth-policy|identity-type|api-session|api|enroll|as|mfa|apply|diff|export)$/.test(
      line,
    )
  );
}

let ctl: TestController;
let admin: HttpHelper;
let cli: LoggedInCli;
let tmp: string;
let env: NodeJS.ProcessEnv;
let shellVariables = '';

function rootFingerprint(): string {
  const blocks = ctl.caPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = blocks.map((b) => new X509Certificate(b));
  return (certs.find((c) => c.subject === c.issuer) ?? certs[0]!).fingerprint256;
}

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  cli = await withLoggedInCli(ctl);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-docs-'));
  // The examples log in as ci-runner.
  const runner = { id: await createIdentity(admin, { name: 'ci-runner' }), password: randomPassword() };
  assertStatus(
    await admin.post('/authenticators', {
      method: 'updb',
      identityId: runner.id,
      username: 'ci-runner',
      password: runner.password,
    }),
    201,
  );
  const bin = path.join(tmp, 'bin');
  const home = path.join(tmp, 'home');
  for (const d of [
    bin,
    path.join(home, '.local/share/bash-completion/completions'),
    path.join(home, '.config/fish/completions'),
    path.join(home, 'zsh'),
  ]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(path.join(bin, 'ctl'), `#!/bin/sh\nexec "${process.execPath}" "${CTL_BIN}" "$@"\n`);
  chmodSync(path.join(bin, 'ctl'), 0o755);
  writeFileSync(path.join(home, 'password.txt'), `${runner.password}\n`);
  writeFileSync(path.join(home, 'controller-ca.pem'), ctl.caPem);
  env = ctlEnv({
    configDir: cli.configDir,
    env: { HOME: home, PATH: `${bin}:${process.env.PATH}`, CONTROLLER: ctl.url, CA_SHA256: rootFingerprint() },
  });
  // The network-as-code examples read a file of this network (net.yaml, the same in net/ and network/) and a file
  // written by OpenZiti's exporter (ziti-export.json).
  const exported = await inProcess(['export', '--output-file', path.join(home, 'net.yaml')]);
  assert.equal(exported.code, 0, exported.stderr);
  for (const dir of ['net', 'network']) {
    mkdirSync(path.join(home, dir));
    copyFileSync(path.join(home, 'net.yaml'), path.join(home, dir, 'net.yaml'));
  }
  copyFileSync(
    path.join(REPO_ROOT, 'test', 'fixtures', 'openziti-export', 'export.json'),
    path.join(home, 'ziti-export.json'),
  );
  // A shell variable, not exported: the examples echo it into --password-stdin; ctl itself must not see it.
  shellVariables = `CTL_PASSWORD='${runner.password}'`;
});

after(async () => {
  await cli?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
  await ctl?.close();
});

/**
 * The state the examples assume: laptop-7 (sales, emea) and laptop-8 exist, except the one the example creates or
 * renames to, and nothing else it creates does yet.
 */
async function resetEntities(line: string): Promise<void> {
  for (const name of ['laptop-7', 'laptop-8', 'alice', 'ci-bot']) {
    const found = await admin.get('/identities', { query: { filter: `name = "${name}"` } });
    for (const e of found.body.data) await admin.delete(`/identities/${e.id}`);
  }
  const made = (name: string) => new RegExp(`(create|--name) ${name}\\b`).test(line);
  const laptop7 = made('laptop-7')
    ? undefined
    : await createIdentity(admin, { name: 'laptop-7', roleAttributes: ['sales', 'emea'] });
  const laptop8 = made('laptop-8') ? undefined : await createIdentity(admin, { name: 'laptop-8' });
  // The config examples: `web` exists unless the line makes it; so does its type `tunnel.v1`.
  for (const e of (await admin.get('/configs', { query: { filter: 'name = "web"' } })).body.data)
    await admin.delete(`/configs/${e.id}`);
  for (const e of (await admin.get('/config-types', { query: { filter: 'name = "tunnel.v1"' } })).body.data)
    await admin.delete(`/config-types/${e.id}`);
  if (!made('tunnel\\.v1')) {
    const type = await admin.post('/config-types', { name: 'tunnel.v1', schema: { type: 'object' } });
    if (!made('web'))
      await admin.post('/configs', {
        name: 'web',
        configTypeId: type.body.data.id,
        data: { hostname: 'web.internal', port: 443 },
      });
  }
  const home = env.HOME!;
  rmSync(path.join(home, 'laptop-7.jwt'), { force: true });
  writeFileSync(
    path.join(home, 'authenticator.json'),
    JSON.stringify({ method: 'updb', identityId: laptop8, username: 'laptop-8-login', password: 'Pa55-word' }),
  );
  process.env.DOCS_LAPTOP7_ID = laptop7;
}

/** The placeholders of a runnable inline example, filled with real values. */
function fill(line: string): string {
  return line
    .replace('"identityId":"ID"', `"identityId":"${process.env.DOCS_LAPTOP7_ID}"`)
    .replace('"PASSWORD"', '"Pa55-word"');
}

function bash(line: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // zsh's $fpath, for the zsh completion example; bash arrays index like zsh's from 1 here because of the filler.
    const script = `fpath=("$HOME/zsh" "$HOME/zsh")\n${shellVariables}\n${line}`;
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], {
      cwd: env.HOME,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The words of a line no shell is needed for (no variables, pipes, redirections or second command), else undefined.
 * Those run in this process through run(), the binary's entry (a process each costs ~150 ms of CPU, and the docs
 * hold about a hundred); the rest go through bash and the built binary.
 */
function plainWords(line: string): string[] | undefined {
  if (!line.startsWith('ctl ') || /[|;&$<>`\\()]/.test(line.replace(/'[^']*'/g, "''"))) return undefined;
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words.slice(1);
}

/** A plain line run in this process, in the examples' home directory (where they write and read their files). */
async function inProcess(words: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const io = createTestIO();
  const cwd = process.cwd();
  process.chdir(env.HOME!);
  try {
    const code = await run(words, { env, io });
    return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
  } finally {
    process.chdir(cwd);
  }
}

/** Commands along the words of a synopsis, and the flags it shows that none of them (nor the root) takes. */
async function unknownFlags(line: string): Promise<{ path: string; unknown: string[] }> {
  const words = line.replace(/^.*?\bctl /, '').split(/\s+/);
  // The CLI builds only the noun a command line selects: build it for these words.
  const program = await buildProgram(testDeps(), words);
  const names: string[] = [];
  while (names.length < words.length && findCommand(program, [...names, words[names.length]!]))
    names.push(words[names.length]!);
  const command = findCommand(program, names)!;
  const flags = new Set<string>(['--help', '-h']);
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent)
    for (const o of c.options) for (const f of [o.long, o.short]) if (f) flags.add(f);
  const shown = [...line.matchAll(/(?:^|[\s[|])(--?[a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
  return { path: names.join(' '), unknown: shown.filter((f) => !flags.has(f)) };
}

/** Examples whose text says what they find: exiting 0 with an empty list would not be what the docs promise. */
const PROMISED_OUTPUT: [string, RegExp][] = [
  [`ctl config list 'type.name = "tunnel.v1"'`, /^\S+\s+web\s+tunnel\.v1\b/m],
];

describe('every command shown in README.md and docs/', () => {
  const shown = shownCommands();
  it('finds the examples', () => {
    assert.ok(shown.length > 50, `${shown.length} commands found`);
    for (const [line] of PROMISED_OUTPUT)
      assert.ok(
        shown.some((s) => s.line === line),
        `not shown: ${line}`,
      );
  });
  for (const { file, line } of shown) {
    if (shapeOnly(line)) {
      it(`${file}: ${line} (names a real command and real flags)`, async () => {
        const { path: commandPath, unknown } = await unknownFlags(line);
        assert.deepEqual(unknown, [], `'ctl ${commandPath}' takes no ${unknown.join(', ')}`);
      });
    } else {
      it(`${file}: ${line}`, async () => {
        await resetEntities(line);
        const filled = fill(line);
        const words = plainWords(filled);
        const r = words ? await inProcess(words) : await bash(filled);
        assert.equal(
          r.code,
          0,
          `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(0, 1500)}\n--- stderr ---\n${r.stderr.slice(0, 1500)}`,
        );
        assert.doesNotMatch(r.stderr, /^error:/m);
        const promised = PROMISED_OUTPUT.find(([shownLine]) => shownLine === line)?.[1];
        if (promised) assert.match(r.stdout, promised);
        // Examples that log in or out change the profile the next example uses: put the admin back.
        if (/\blog(in|out)\b/.test(line))
          await cli.expect(
            0,
            ['login', ctl.url, '-u', ctl.adminUser, '--password-stdin', '--ca', ctl.caFile, '--profile', 'default'],
            { stdin: `${ctl.adminPassword}\n` },
          );
      });
    }
  }
});
