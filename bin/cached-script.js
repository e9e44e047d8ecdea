// Runs a CommonJS script of the build through vm.Script with a V8 code cache kept in the user's cache directory,
// so that a start deserialises compiled code instead of parsing and compiling the script. The cache is only ever
// a saving: one V8 rejects (another Node, other flags, a truncated file) is replaced after the run, and a cache
// directory that cannot be read or written leaves the script running uncached. V8 checks a cache's length, not its
// bytes (Node's release builds skip the checksum): a file altered in place would abort the process, so a cache is
// only ever written whole to a temporary file and renamed over.
'use strict';
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { homedir } = require('node:os');
const path = require('node:path');
const { Script } = require('node:vm');

/** $XDG_CACHE_HOME/ctl, or the platform's own cache directory. */
function cacheDirectory(env) {
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'ctl');
  if (process.platform === 'darwin') return path.join(homedir(), 'Library', 'Caches', 'ctl');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'ctl', 'Cache');
  return path.join(homedir(), '.cache', 'ctl');
}

/** A short name for a text in a file name (FNV-1a): node:crypto would cost more to load than the rest. */
function tag(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16);
}

/**
 * Writes the cache atomically (0600 in a 0700 directory) and removes those `prefix` names: the caches older
 * builds at the same place left.
 */
function keep(script, directory, file, prefix) {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
    renameSync(temporary, file);
    for (const name of readdirSync(directory)) {
      const stale = name.startsWith(prefix) && name.endsWith('.bin') && name !== path.basename(file);
      if (stale) rmSync(path.join(directory, name), { force: true });
    }
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written, the directory being unusable.
    }
  }
}

/**
 * Runs `file` (a script whose first line is `// ctl-script <hash> ...`; `source` its text, when read already) as a
 * CommonJS module whose `require` is `requireFor`, and returns its exports. `name` names its cache: the script
 * run for different kinds of command line keeps one cache for each, as a cache holds what the run that made it
 * compiled.
 */
function runCachedScript(file, name, requireFor, source = readFileSync(file, 'utf8')) {
  const { env } = process;
  const hash = /^\/\/ ctl-script ([0-9a-f]+) /.exec(source)?.[1];
  const directory = cacheDirectory(env);
  // Named by the script's place, so that two installations each keep theirs, and by what V8 checks: the content,
  // Node's version and the flags (V8 rejects a cache made under other flags).
  const prefix = `${name}-${tag(file)}-`;
  const flags = tag(`${process.execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}`);
  const cacheFile = hash && path.join(directory, `${prefix}${hash}-${process.version}-${flags}.bin`);
  let cachedData;
  try {
    cachedData = cacheFile ? readFileSync(cacheFile) : undefined;
  } catch {
    cachedData = undefined;
  }
  // The wrapper shares the script's first line, a comment: every other position in its source map still holds.
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  // Made after the run, so that it holds what the run compiled, not only the outermost function.
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => keep(script, directory, cacheFile, prefix));
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireFor, module, file, path.dirname(file));
  return module.exports;
}

module.exports = { runCachedScript };
