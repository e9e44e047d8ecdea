// What the built CLI loads for a command line, read from the process itself. The common path is one script
// (dist/cli.cjs) whose modules are each evaluated on first use by esbuild's wrappers: the test runs a copy of the
// build whose wrappers also log the source of each module they evaluate, and adds the modules the script runs
// unwrapped (those its entry imports). A module hook lists the ES modules loaded (the build the full-build
// commands and --debug run on), and process.moduleLoadList gives the Node built-ins. Start-up speed itself lives
// in the bench (bench/cli-start.ts); this checks its cause, the loading.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const work = mkdtempSync(join(tmpdir(), 'ctl-lazy-'));
// A cache directory that cannot be made: runs keep no code cache, so each one compiles the same functions.
const noCache = join(work, 'not-a-directory');
writeFileSync(noCache, '');

const hooks = join(work, 'hooks.mjs');
writeFileSync(
  hooks,
  "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n" +
    '  appendFileSync(process.env.CTL_TEST_LOADED, `${url}\\n`);\n  return next(url, context);\n}\n',
);
const preload = join(work, 'preload.mjs');
writeFileSync(
  preload,
  "import { appendFileSync } from 'node:fs';\nimport { register } from 'node:module';\n" +
    `register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
    'const evaluated = [];\nglobalThis.__ctlTestEvaluated = (source) => evaluated.push(source);\n' +
    "process.on('exit', () => appendFileSync(process.env.CTL_TEST_LOADED, " +
    "evaluated.map((s) => `evaluated ${s}\\n`).join('') + " +
    "process.moduleLoadList.map((m) => `builtin ${m}\\n`).join('')));\n",
);

/** esbuild's wrappers, each given a line that tells the preload which module's source it evaluates. */
const WRAPPERS = [
  [
    'var __esm = (fn, res) => function __init() {\n',
    '  if (fn) globalThis.__ctlTestEvaluated(__getOwnPropNames(fn)[0]);\n',
  ],
  [
    'var __commonJS = (cb, mod) => function __require() {\n',
    '  if (!mod) globalThis.__ctlTestEvaluated(__getOwnPropNames(cb)[0]);\n',
  ],
];

interface Build {
  dir: string;
  /** Sources (relative to the package root) the common script evaluates whenever it runs: those not wrapped. */
  unwrapped: string[];
}

/** A copy of the build in `dir` whose scripts log the modules they evaluate. */
function instrumented(dir: string, copy: string): Build {
  cpSync(join(dir, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(dir, 'dist'), join(copy, 'dist'), { recursive: true });
  if (existsSync(join(dir, 'package.json'))) cpSync(join(dir, 'package.json'), join(copy, 'package.json'));
  const wrapped = new Set<string>();
  for (const name of ['cli.cjs', 'cli-extras.cjs']) {
    const file = join(copy, 'dist', name);
    let text = readFileSync(file, 'utf8');
    for (const [helper, line] of WRAPPERS) {
      assert.ok(text.includes(helper), `${name} has esbuild's wrapper ${helper.trim()}`);
      text = text.replace(helper, helper + line);
    }
    for (const match of text.matchAll(/^var \w+ = __(?:esm|commonJS)\(\{\n {2}"([^"]+)"\(/gm)) wrapped.add(match[1]);
    writeFileSync(file, text);
  }
  const map = JSON.parse(readFileSync(join(copy, 'dist', 'cli.cjs.map'), 'utf8')) as { sources: string[] };
  const sources = map.sources.map((s) => resolve(join(copy, 'dist'), s).slice(copy.length + 1));
  return { dir: copy, unwrapped: sources.filter((s) => !wrapped.has(s)) };
}

interface Loaded {
  /** Sources (relative to the package root) of the modules evaluated, from the script or the ES module build. */
  sources: Set<string>;
  /** Node built-ins loaded, e.g. `child_process`. */
  builtins: Set<string>;
  /** Files of the ES module build loaded. */
  modules: string[];
  stdout: string;
  stderr: string;
}

let run = 0;
/** Runs `bin/ctl.js ...args` of `build` (exiting with one of `statuses`) and reports what it loaded. */
function loadedBy(build: Build, args: string[], env: Record<string, string> = {}, statuses = [0, 2]): Loaded {
  const { dir } = build;
  const log = join(work, `loaded-${run++}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(preload).href, join(dir, 'bin/ctl.js'), ...args],
    {
      env: {
        PATH: process.env.PATH,
        CTL_CONFIG_DIR: join(work, 'config'),
        CTL_TEST_LOADED: log,
        XDG_CACHE_HOME: noCache,
        ...env,
      },
      encoding: 'utf8',
    },
  );
  assert.ok(statuses.includes(result.status ?? -1), `ctl ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const loaded: Loaded = {
    sources: new Set(),
    builtins: new Set(),
    modules: [],
    stdout: result.stdout,
    stderr: result.stderr,
  };
  const lines = readFileSync(log, 'utf8').split('\n');
  if (lines.some((line) => line.startsWith('evaluated '))) {
    for (const source of build.unwrapped) loaded.sources.add(source);
  }
  for (const line of lines) {
    if (line.startsWith('builtin NativeModule ')) loaded.builtins.add(line.slice('builtin NativeModule '.length));
    if (line.startsWith('evaluated ')) loaded.sources.add(line.slice('evaluated '.length));
    if (!line.startsWith('file:')) continue;
    const file = fileURLToPath(line);
    if (!file.startsWith(join(dir, 'dist'))) continue;
    loaded.modules.push(file);
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    for (const source of map.sources) loaded.sources.add(resolve(join(file, '..'), source).slice(dir.length + 1));
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
  let built: Build;
  before(() => {
    // `npm test` builds first; a lone run of this file builds if it has to.
    const script = join(root, 'dist/cli.cjs');
    if (!existsSync(script)) spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
    built = instrumented(root, join(work, 'built'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("ctl --help is served from the build's prebuilt files: every noun listed, nothing of the CLI evaluated", () => {
    const loaded = loadedBy(built, ['--help']);
    assert.deepEqual([...loaded.sources], [], 'nothing of the common script');
    assert.deepEqual(loaded.modules, [], 'nothing of the ES module build');
    assert.match(loaded.stdout, /^ {2}identity\|identities /m);
    assert.match(loaded.stdout, /^ {2}api-session\|api-sessions /m);
    assert.deepEqual(
      HEAVY_BUILTINS.filter((b) => loaded.builtins.has(b)),
      [],
    );
    assert.equal(loaded.stdout, loadedBy(built, ['--debug', '--help']).stdout, 'as the ES module build prints it');
  });

  it('a TAB on a command word is served without evaluating the CLI', () => {
    const lines: Array<[string[], string]> = [
      [['__complete', 'ident'], 'identity\nidentity-type\n'],
      [['__complete', '--', 'identity', 'dis'], 'disable\n'],
    ];
    for (const [args, expected] of lines) {
      const loaded = loadedBy(built, args);
      assert.equal(loaded.stdout, expected);
      assert.deepEqual([...loaded.sources], [], args.join(' '));
    }
  });

  it('a noun loads its own modules and the generic verbs, and no other command', () => {
    const identity = loadedBy(built, ['identity', 'enable']);
    for (const source of ['src/cli/identity/enable.ts', 'src/cli/generic/list.ts', 'src/resources/identity.ts'])
      assert.ok(identity.sources.has(source), source);
    assert.deepEqual(matching(identity, /^src\/cli\/(session|profile|controller)\//), []);

    // The catalogue evaluates the definitions the noun asks for, not every one (nor the config types' schemas).
    assert.deepEqual(matching(identity, /^src\/resources\/(service|config-type|openziti-config-types\/)/), []);

    const policy = loadedBy(built, ['auth-policies', 'list', '--bogus']);
    assert.ok(policy.sources.has('src/cli/generic/list.ts'));
    assert.deepEqual(matching(policy, /^src\/cli\/identity\//), [], "auth-policy does not load identity's own verbs");
  });

  it('a TAB that needs names from the controller runs the CLI, loading that noun only', () => {
    const loaded = loadedBy(built, ['__complete', '--', 'identity', 'disable', '']);
    assert.equal(loaded.stdout, '', 'no controller, no names');
    assert.ok(loaded.sources.has('src/cli/identity/disable.ts'));
    assert.deepEqual(matching(loaded, /^src\/cli\/(session|profile|controller)\//), []);
  });

  it('a command kept out of the common script, and --debug, run on the ES module build', () => {
    for (const args of [
      ['controller', 'nosuch'],
      ['--debug', '--help'],
    ]) {
      const loaded = loadedBy(built, args);
      assert.ok(loaded.modules.includes(join(built.dir, 'dist/main.js')), `ctl ${args.join(' ')}`);
    }
    const served = loadedBy(built, ['controller', '--help']);
    assert.deepEqual(served.modules, [], 'its help is served');
    assert.equal(served.stdout, loadedBy(built, ['--debug', 'controller', '--help']).stdout);
  });

  it('chooses the build by the command a line runs, not by any word in it', () => {
    // An identity named `export` is shown by the common script; `export` after the root's options is the command.
    const refused = { CTL_CONTROLLER: 'https://127.0.0.1:9', CTL_TOKEN: 'x' };
    const show = loadedBy(built, ['identity', 'show', 'export'], refused, [1]);
    assert.deepEqual(show.modules, []);
    assert.ok(show.sources.has('src/cli/identity/index.ts'));
    const exported = loadedBy(built, ['-o', 'json', 'export', '--bogus'], {}, [2]);
    assert.ok(exported.modules.includes(join(built.dir, 'dist/main.js')));
  });

  it("a command that calls a controller sends its request over node:tls, loading no HTTP library, Node's none", () => {
    // Nothing listens on port 9: the request is made and refused, which is all this needs.
    const refused = { CTL_CONTROLLER: 'https://127.0.0.1:9', CTL_TOKEN: 'x' };
    const loaded = loadedBy(built, ['identity', 'list'], refused, [1]);
    assert.ok(loaded.sources.has('src/client/transport.ts'), 'the request went through the transport');
    assert.ok(loaded.builtins.has('tls'));
    assert.deepEqual(matching(loaded, /^node_modules\/undici\//), []);
    const nodeHttp = [...loaded.builtins].filter((b) => /^(https?|_http_\w+)$/.test(b));
    assert.deepEqual(nodeHttp, [], "Node's HTTP client, agent and server are not needed");
    const unused = ['fs/promises', 'readline', 'perf_hooks'].filter((b) => loaded.builtins.has(b));
    assert.deepEqual(unused, [], 'nothing the list does not use: no file read, no timing taken');
  });

  it('node:fs/promises is loaded by the first call of one of its functions, which then works', () => {
    const notPem = join(work, 'not-a-certificate.pem');
    writeFileSync(notPem, 'not a certificate\n');
    const args = ['login', 'https://127.0.0.1:9', '-u', 'admin', '--ca', notPem];
    const loaded = loadedBy(built, args, { CTL_PASSWORD: 'x' }, [2]);
    assert.match(loaded.stderr, /^error: --ca \S+ holds no PEM certificate$/m, 'the file was read');
    assert.ok(loaded.builtins.has('fs/promises'));
  });

  it('a logged-in command reads its profile and token with fs: conf and its validator load only to write', () => {
    const config = join(work, 'logged-in');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    // Nothing listens on port 9: the profile is read and the request refused.
    const profiles = { current: 'lab', profiles: { lab: { controller: 'https://127.0.0.1:9', username: 'admin' } } };
    writeFileSync(join(config, 'config.json'), JSON.stringify(profiles), { mode: 0o600 });
    writeFileSync(join(config, 'credentials.json'), JSON.stringify({ sessions: { lab: { token: 'x' } } }), {
      mode: 0o600,
    });
    const loaded = loadedBy(built, ['identity', 'list'], { CTL_CONFIG_DIR: config }, [1]);
    assert.ok(loaded.sources.has('src/client/profiles.ts'), 'the profile store read the files');
    assert.ok(loaded.sources.has('src/client/transport.ts'), 'with the profile read, the request was made');
    const conf = /^node_modules\/(conf|ajv|ajv-formats|atomically|env-paths)\//;
    assert.deepEqual(matching(loaded, conf), []);
    // A write goes through conf (atomic, 0600), loaded from the extras script.
    const written = loadedBy(built, ['profile', 'use', 'lab'], { CTL_CONFIG_DIR: config }, [0]);
    assert.ok(written.sources.has('node_modules/conf/dist/source/index.js'), [...written.sources].join(' '));
    assert.ok(matching(written, conf).length > 1);
  });

  it('a table of Latin text is laid out without cli-table3, which only text of other widths needs', () => {
    const config = join(work, 'a-profile');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    const profiles = { current: 'lab', profiles: { lab: { controller: 'https://127.0.0.1:9', username: 'admin' } } };
    writeFileSync(join(config, 'config.json'), JSON.stringify(profiles), { mode: 0o600 });
    const loaded = loadedBy(built, ['profile', 'list'], { CTL_CONFIG_DIR: config }, [0]);
    assert.equal(
      loaded.stdout,
      'CURRENT  NAME  CONTROLLER           USERNAME  SESSION\n*        lab   https://127.0.0.1:9  admin     none\n',
    );
    assert.ok(loaded.sources.has('src/cli/output/table.ts'), 'the profiles were printed as a table');
    assert.deepEqual(matching(loaded, /^node_modules\/(cli-table3|string-width)\//), []);
  });

  it('with 40 more resources in the catalogue, ctl --help lists them and still loads no resource definition', () => {
    const synthetic = join(work, 'synthetic');
    const args = [join(root, 'scripts/build.mjs'), '--outdir', synthetic, '--synthetic-nouns', '40'];
    const made = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const loaded = loadedBy(instrumented(synthetic, join(work, 'synthetic-built')), ['--help']);
    assert.match(loaded.stdout, /^ {2}synthetic-40\|synthetic-40s /m);
    assert.match(loaded.stdout, /^Posture checks:$/m);
    assert.deepEqual(matching(loaded, COMMAND_CODE), []);
    assert.deepEqual([...loaded.sources], []);
    // Each noun adds its line of the root help and its words to what --help and a TAB read; its commands are in
    // a file of their own.
    const index = (dir: string) => statSync(join(dir, 'dist/prebuilt/index.json')).size;
    const perNoun = (index(synthetic) - index(root)) / 40;
    assert.ok(perNoun < 250, `the root's prebuilt file grows by ${perNoun.toFixed(0)} bytes per noun`);
    const tabBuild = instrumented(synthetic, join(work, 'synthetic-tab'));
    const tab = loadedBy(tabBuild, ['__complete', '--', 'synthetic-07', '']);
    assert.equal(
      tab.stdout,
      'list\nshow\nupdate\ndelete\nauthenticators\nenrollments\n' +
        'service-policies\nedge-router-policies\nservices\nedge-routers\nservice-configs\n',
    );
  });
});
