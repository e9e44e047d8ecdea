import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The one place that loads better-sqlite3 and its native binding, so that a binding that is missing (npm 12 skips
 * install scripts package.json's allowScripts does not approve; `--ignore-scripts`; a failed compile) or was built
 * for another Node.js says so and how to fix it, instead of failing with a stack trace at the first database call.
 *
 * `CTL_SQLITE_BINDING` (or the `bindingPath` argument) points at a `better_sqlite3.node` to load instead of the one
 * in node_modules: a binary built elsewhere, or, in tests, one that does not exist.
 */

export type SqliteNativeProblem = 'missing' | 'node-version' | 'load-failed' | 'not-installed';

const FIX = 'rebuild it with: npm rebuild better-sqlite3';
const FROM_SOURCE =
  'without network access to a prebuilt binary it compiles from ' +
  'source: that needs python3, make, a C++ compiler and Node.js headers';

/** better-sqlite3 or its native binding cannot be loaded. `details` are the lines that say how to fix it. */
export class SqliteNativeError extends Error {
  readonly problem: SqliteNativeProblem;
  readonly details: string[];
  constructor(problem: SqliteNativeProblem, message: string, details: string[], cause?: unknown) {
    super(message, { cause });
    this.name = 'SqliteNativeError';
    this.problem = problem;
    this.details = details;
  }
}

export interface SqliteNative {
  Database: typeof BetterSqlite3;
  /** The loaded addon, for better-sqlite3's `nativeBinding` option. */
  nativeBinding: object;
}

const loaded = new Map<string, SqliteNative>();

/** Loads better-sqlite3 and its binding once (per binding path); throws SqliteNativeError when it cannot. */
export function loadSqlite(
  bindingPath: string | undefined = process.env.CTL_SQLITE_BINDING || undefined,
): SqliteNative {
  const key = bindingPath ?? '';
  const cached = loaded.get(key);
  if (cached) return cached;
  const requireHere = createRequire(import.meta.url);
  let Database: typeof BetterSqlite3;
  let packageRoot: string;
  try {
    packageRoot = path.dirname(requireHere.resolve('better-sqlite3/package.json'));
    Database = requireHere('better-sqlite3') as typeof BetterSqlite3;
  } catch (err) {
    throw new SqliteNativeError(
      'not-installed',
      'the SQLite module better-sqlite3 is not installed',
      ['install the dependencies with: npm install'],
      err,
    );
  }
  let nativeBinding: object;
  try {
    if (bindingPath !== undefined) {
      // The same resolution better-sqlite3 applies to a nativeBinding path.
      nativeBinding = requireHere(path.resolve(bindingPath).replace(/(\.node)?$/, '.node')) as object;
    } else {
      // better-sqlite3's own lookup (build/Release, build/Debug, ...), rooted at its package rather than at our bundle.
      const bindings = createRequire(path.join(packageRoot, 'package.json'))('bindings') as (opts: object) => object;
      nativeBinding = bindings({ bindings: 'better_sqlite3.node', module_root: packageRoot });
    }
  } catch (err) {
    throw describeLoadFailure(err, bindingPath);
  }
  const result = { Database, nativeBinding };
  loaded.set(key, result);
  return result;
}

/** Opens a database with the binding loadSqlite() found (same arguments as `new Database()`). */
export function openSqlite(file: string, options: BetterSqlite3.Options = {}): BetterSqlite3.Database {
  const { Database, nativeBinding } = loadSqlite();
  // better-sqlite3 also takes the loaded addon here; its type declarations only mention a path.
  return new Database(file, { ...options, nativeBinding: nativeBinding as unknown as string });
}

/** Turns what require() or dlopen() threw for the binding into an error that says what happened and the fix. */
export function describeLoadFailure(err: unknown, bindingPath?: string): Error {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  const where = bindingPath ? ` (${bindingPath})` : '';
  const versionMismatch = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (versionMismatch) {
    return new SqliteNativeError(
      'node-version',
      `the SQLite native module (better-sqlite3)${where} was built for another Node.js version ` +
        `(NODE_MODULE_VERSION ${versionMismatch[1]}; Node.js ${process.version} needs ${versionMismatch[2]})`,
      [`${FIX} (with the Node.js that runs ctl)`, FROM_SOURCE],
      err,
    );
  }
  if (
    message.startsWith('Could not locate the bindings file') ||
    (code === 'MODULE_NOT_FOUND' && /\.node\b/.test(message))
  ) {
    return new SqliteNativeError(
      'missing',
      `the SQLite native module (better-sqlite3) is not built${where || ': no better_sqlite3.node was found'}`,
      [
        FIX,
        FROM_SOURCE,
        "npm 12 skips install scripts that package.json's allowScripts does not approve: see `npm install-scripts ls`",
      ],
      err,
    );
  }
  if (code === 'ERR_DLOPEN_FAILED') {
    return new SqliteNativeError(
      'load-failed',
      `the SQLite native module (better-sqlite3)${where} could not be loaded: ${message.split('\n')[0]}`,
      [`${FIX} (it may have been built for another platform or C library)`, FROM_SOURCE],
      err,
    );
  }
  return err instanceof Error ? err : new Error(message);
}
