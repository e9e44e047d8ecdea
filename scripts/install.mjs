// The install step of the README's set-up (`npm run setup`) and of CI (`node scripts/install.mjs --ci`): npm install
// (npm ci with --ci), with what a native build needs worked out here rather than left to a per-user npm setting.
//
// better-sqlite3 compiles from source wherever no prebuilt binary can be downloaded. node-gyp then needs the headers
// of the running Node.js and downloads them from nodejs.org unless `npm_config_nodedir` names a directory that has
// them. Node.js from a distribution or NodeSource package installs them under <prefix>/include/node, so this looks
// there and sets the variable for the install when the headers match the running version. When they are missing, or
// the install fails, it says what is missing instead of leaving the reader with node-gyp's network error.
//
// Usage: node scripts/install.mjs [--ci]    (extra arguments after -- go to npm)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version `<dir>/include/node/node_version.h` declares ("20.20.2"), or undefined when there is none. */
export function headerVersion(dir) {
  const file = join(dir, 'include', 'node', 'node_version.h');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  const field = (name) => text.match(new RegExp(`^#define NODE_${name}_VERSION (\\d+)$`, 'm'))?.[1];
  const [major, minor, patch] = ['MAJOR', 'MINOR', 'PATCH'].map(field);
  return major && minor && patch ? `${major}.${minor}.${patch}` : undefined;
}

/**
 * Where node-gyp should find the headers of Node.js `version` installed at `execPath`:
 * `{ nodedir, source }` with source 'set' (the caller's own setting, kept), 'found' (<prefix>/include/node matches),
 * or `{ missing }` naming the directory looked in and what it holds.
 */
export function headersFor({ env, execPath, version, configuredNodedir }) {
  const own = env.npm_config_nodedir || env.NPM_CONFIG_NODEDIR || configuredNodedir;
  if (own) return { nodedir: own, source: 'set' };
  const prefix = dirname(dirname(execPath));
  const found = headerVersion(prefix);
  if (found === version) return { nodedir: prefix, source: 'found' };
  const where = join(prefix, 'include', 'node');
  return { missing: found ? `${where} holds the headers of Node.js ${found}, not ${version}` : `${where} has none` };
}

/** Build tools node-gyp needs to compile better-sqlite3 that are not on PATH. */
export function missingBuildTools(env = process.env) {
  const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { env, stdio: 'ignore' }).status === 0;
  const missing = [];
  if (!has('python3')) missing.push('python3');
  if (!has('make')) missing.push('make');
  if (!has('c++') && !has('g++') && !has('clang++')) missing.push('a C++ compiler (g++ or clang++)');
  return missing;
}

function npmConfig(name) {
  const out = spawnSync('npm', ['config', 'get', name], { encoding: 'utf8' });
  const value = out.status === 0 ? out.stdout.trim() : '';
  return value === 'undefined' || value === 'null' ? '' : value;
}

/** Runs npm with its output passed through and kept, so that CI can look for the allowScripts warning in it. */
function runNpm(args, env) {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (b) => {
      process.stdout.write(b);
      log += b;
    });
    child.stderr.on('data', (b) => {
      process.stderr.write(b);
      log += b;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, log }));
  });
}

function sqliteLoads(root) {
  const probe = "new (require('better-sqlite3'))(':memory:').close()";
  return spawnSync(process.execPath, ['-e', probe], { cwd: root, stdio: 'ignore' }).status === 0;
}

async function main() {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const argv = process.argv.slice(2);
  const ci = argv.includes('--ci');
  const extra = argv.includes('--') ? argv.slice(argv.indexOf('--') + 1) : [];
  const say = (line) => process.stderr.write(`setup: ${line}\n`);
  const version = process.versions.node;
  const configuredNodedir = npmConfig('nodedir');
  const headers = headersFor({ env: process.env, execPath: process.execPath, version, configuredNodedir });
  const env = { ...process.env };
  if (headers.source === 'found') {
    env.npm_config_nodedir = headers.nodedir;
    say(`compiling native modules against the Node.js ${version} headers in ${headers.nodedir}/include/node`);
  } else if (headers.missing) {
    say(`no local headers for Node.js ${version} (${headers.missing}); if better-sqlite3 must be compiled, node-gyp`);
    say('will try to download them from nodejs.org');
  }

  const args = [ci ? 'ci' : 'install', '--no-audit', '--no-fund'];
  // npm 11.x and later know strict-allow-scripts: in CI an install script package.json's allowScripts does not
  // approve fails the install instead of running (or, with npm 12, being skipped in silence).
  if (ci && npmConfig('strict-allow-scripts') === 'false') args.push('--strict-allow-scripts');
  const { code, log } = await runNpm([...args, ...extra], env);
  if (ci && log.includes('not yet covered by allowScripts')) {
    say('error: npm reported install scripts not covered by allowScripts');
    say('review them, then `npm install-scripts approve NAME`');
    process.exit(1);
  }
  if (code === 0 && sqliteLoads(root)) return;

  if (code === 0) say('error: npm succeeded, but better-sqlite3 (the SQLite native module) does not load');
  else say(`error: npm ${args[0]} failed`);
  const tools = missingBuildTools();
  if (tools.length) {
    say(`missing to compile better-sqlite3: ${tools.join(', ')}`);
    say('(Debian/Ubuntu: apt-get install build-essential python3)');
  }
  if (headers.missing) {
    say(`missing: the headers of Node.js ${version}, unless nodejs.org can be reached (${headers.missing}).`);
    say('Install the Node.js package that carries them (NodeSource and distribution packages put them in');
    say('<prefix>/include/node), or set npm_config_nodedir to a directory with include/node for this version.');
  }
  say('then run `npm run setup` again: a failed install leaves no node_modules, so `npm rebuild` has nothing to build');
  process.exit(code || 1);
}

// Run as a script only, never when imported. Not `import.meta.url === argv[1]`: the tests import this module into a
// bundle, whose import.meta.url is the test's own file, the process's argv[1]; that ran a real `npm install` (and
// with it the build, rewriting dist/) in the middle of the test run.
if (basename(process.argv[1] ?? '') === 'install.mjs') await main();
