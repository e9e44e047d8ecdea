// What the built CLI loads for a command line, read from the process itself: a module hook lists every file the
// ESM loader loads, each built file's source map says which sources it holds, and process.moduleLoadList gives the
// Node built-ins. Start-up speed itself lives in the bench (bench/cli-start.ts); this checks its cause, the loading.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const work = mkdtempSync(join(tmpdir(), 'ctl-lazy-'));

const hooks = join(work, 'hooks.mjs');
writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n" +
  "  appendFileSync(process.env.CTL_TEST_LOADED, `${url}\\n`);\n  return next(url, context);\n}\n");
const preload = join(work, 'preload.mjs');
writeFileSync(
  preload,
  "import { appendFileSync } from 'node:fs';\nimport { register } from 'node:module';\n" +
    `register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
    "process.on('exit', () => appendFileSync(process.env.CTL_TEST_LOADED, " +
    "process.moduleLoadList.map((m) => `builtin ${m}\\n`).join('')));\n",
);

interface Loaded {
  /** Sources (relative to the package root) of the built files loaded. */
  sources: Set<string>;
  /** Node built-ins loaded, e.g. `child_process`. */
  builtins: Set<string>;
  /** Total size of the built files loaded. */
  bytes: number;
  stdout: string;
}

let run = 0;
/** Runs `bin/ctl.js ...args` of the build in `dir` (exiting with one of `statuses`) and reports what it loaded. */
function loadedBy(dir: string, args: string[], env: Record<string, string> = {}, statuses = [0, 2]): Loaded {
  const log = join(work, `loaded-${run++}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, join(dir, 'bin/ctl.js'), ...args], {
    env: { PATH: process.env.PATH, CTL_CONFIG_DIR: join(work, 'config'), CTL_TEST_LOADED: log, ...env },
    encoding: 'utf8',
  });
  assert.ok(statuses.includes(result.status ?? -1), `ctl ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const loaded: Loaded = { sources: new Set(), builtins: new Set(), bytes: 0, stdout: result.stdout };
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (line.startsWith('builtin NativeModule ')) loaded.builtins.add(line.slice('builtin NativeModule '.length));
    if (!line.startsWith('file:')) continue;
    const file = fileURLToPath(line);
    if (!file.startsWith(join(dir, 'dist'))) continue;
    loaded.bytes += statSync(file).size;
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    for (const source of map.sources) loaded.sources.add(resolve(join(file, '..'), source).slice(root.length + 1));
  }
  return loaded;
}

const matching = (loaded: Loaded, pattern: RegExp) => [...loaded.sources].filter((s) => pattern.test(s));

/** The code of nouns and commands: resource definitions, generic and own verbs, and every other command's modules. */
const COMMAND_CODE = new RegExp(
  '^src/(resources/|cli/(nouns/verbs|generic/(list|show|update|delete|relation|resolve|fields)|identity/|session/|' +
    'profile/|controller/|output/render)|client/(http|session-manager)|controller/)',
);
/**
 * Built-ins that only commands doing I/O need; child_process also brings dgram and net (net is not listed: Node
 * loads it anyway when stdout is a pipe, as here).
 */
const HEAVY_BUILTINS = ['child_process', 'dgram', 'http', 'https', 'tls', 'crypto', 'fs/promises'];

describe('what the built CLI loads', () => {
  before(() => {
    // `npm test` builds first; a lone run of this file builds if it has to.
    if (!existsSync(join(root, 'dist/main.js'))) spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('ctl --help lists every noun and loads none of their modules, nor any command\'s', () => {
    const loaded = loadedBy(root, ['--help']);
    assert.ok(loaded.sources.has('src/cli/tree.ts'), 'the hook saw the root chunk');
    assert.match(loaded.stdout, /^ {2}identity\|identities /m);
    assert.match(loaded.stdout, /^ {2}api-session\|api-sessions /m);
    assert.deepEqual(matching(loaded, COMMAND_CODE), []);
    assert.deepEqual(HEAVY_BUILTINS.filter((b) => loaded.builtins.has(b)), []);
  });

  it('a TAB on a top-level word loads no noun', () => {
    const loaded = loadedBy(root, ['__complete', 'ident']);
    assert.equal(loaded.stdout, 'identity\nidentity-type\n');
    assert.deepEqual(matching(loaded, COMMAND_CODE), []);
  });

  it('a noun loads its own modules and the generic verbs, and no other command', () => {
    const identity = loadedBy(root, ['identity', '--help']);
    assert.match(identity.stdout, /^ {2}enable <name-or-id>/m);
    for (const source of ['src/cli/identity/enable.ts', 'src/cli/generic/list.ts', 'src/resources/identity.ts']) assert.ok(identity.sources.has(source), source);
    assert.deepEqual(matching(identity, /^src\/cli\/(session|profile|controller)\//), []);

    const policy = loadedBy(root, ['auth-policies', 'list', '--help']);
    assert.ok(policy.sources.has('src/cli/generic/list.ts'));
    assert.deepEqual(matching(policy, /^src\/cli\/identity\//), [], "auth-policy does not load identity's own verbs");
  });

  it('a TAB below a noun loads that noun only', () => {
    const loaded = loadedBy(root, ['__complete', '--', 'identity', 'dis']);
    assert.equal(loaded.stdout, 'disable\n');
    assert.ok(loaded.sources.has('src/cli/identity/disable.ts'));
    assert.deepEqual(matching(loaded, /^src\/cli\/(session|profile|controller)\//), []);
  });

  it('a command that calls a controller sends its request with node:https, loading no HTTP library', () => {
    // Nothing listens on port 9: the request is made and refused, which is all this needs.
    const loaded = loadedBy(root, ['identity', 'list'], { CTL_CONTROLLER: 'https://127.0.0.1:9', CTL_TOKEN: 'x' }, [1]);
    assert.ok(loaded.sources.has('src/client/transport.ts'), 'the request went through the transport');
    assert.deepEqual(matching(loaded, /^node_modules\/undici\//), []);
  });

  it('with 40 more resources in the catalogue, ctl --help lists them and still loads no resource definition', () => {
    const synthetic = join(work, 'synthetic');
    const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--outdir', synthetic, '--synthetic-nouns', '40'], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const plain = loadedBy(root, ['--help']);
    const loaded = loadedBy(synthetic, ['--help']);
    assert.match(loaded.stdout, /^ {2}synthetic-40\|synthetic-40s /m);
    assert.match(loaded.stdout, /^Posture checks:$/m);
    assert.deepEqual(matching(loaded, COMMAND_CODE), []);
    // Each noun adds its summary (name, aliases, description, group) to the root, not its definition (~5 KB each).
    const perNoun = (loaded.bytes - plain.bytes) / 40;
    assert.ok(perNoun < 250, `the root grows by ${perNoun.toFixed(0)} bytes per noun`);
    const tab = loadedBy(synthetic, ['__complete', '--', 'synthetic-07', '']);
    assert.equal(tab.stdout, 'list\nshow\nupdate\ndelete\nauthenticators\nenrollments\n' +
      'service-policies\nedge-router-policies\nservices\nedge-routers\nservice-configs\n');
  });
});
