// Runs a CommonJS script of the build through vm.Script with a V8 code cache kept in the user's cache directory,
// so that a start deserialises compiled code instead of parsing and compiling the script. The cache is only ever
// a saving: one V8 rejects (another Node, other flags) or a damaged file is replaced after the run, and a cache
// directory that cannot be read or written leaves the script running uncached. Nothing here fails a command.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { Script } from 'node:vm';

/** $XDG_CACHE_HOME/ctl, or the platform's own cache directory. */
function cacheDirectory(env) {
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'ctl');
  if (process.platform === 'darwin') return path.join(homedir(), 'Library', 'Caches', 'ctl');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'ctl', 'Cache');
  return path.join(homedir(), '.cache', 'ctl');
}

/** V8 rejects a cache made under other flags: a file per set of flags, named by a short hash of them. */
function flagsTag(env) {
  let hash = 0x811c9dc5;
  for (const char of `${process.execArgv.join(' ')}\0${env.NODE_OPTIONS ?? ''}`) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  }
  return hash.toString(16);
}

/** Writes the cache atomically (0600 in a 0700 directory) and removes the caches of other builds of this name. */
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
 * Runs `file` (a script whose first line is `// ctl-script <hash> ...`) as a CommonJS module whose `require` is
 * `requireFor`, and returns its exports. `name` names its cache: scripts run for different kinds of command line
 * keep one cache each, since a cache holds the functions compiled by the run that made it.
 */
export function runCachedScript(file, name, requireFor, env = process.env) {
  const source = readFileSync(file, 'utf8');
  const hash = /^\/\/ ctl-script ([0-9a-f]+) /.exec(source)?.[1];
  const directory = cacheDirectory(env);
  const prefix = `${name}-`;
  const cacheFile = hash && path.join(directory, `${prefix}${hash}-${process.version}-${flagsTag(env)}.bin`);
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
