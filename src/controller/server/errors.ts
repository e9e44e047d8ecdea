import { ApiError } from '../../protocol/errors.js';
import { ZitiQlError } from '../../protocol/zitiql/index.js';
import { DamagedRowError } from '../store/codec.js';
import { StoreUnavailableError } from '../store/driver.js';
import { FilterError } from '../store/filter-sql.js';

/** What a 503 STORE_UNAVAILABLE sends as `Retry-After` (seconds): a lost server reconnects within a few seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * The one place where anything thrown becomes an API error. Client mistakes map to their 4xx codes; anything
 * unknown is an UNHANDLED 500 whose details go to the log only (the response carries the request id).
 * Unique-index violations are mapped where the write knows the value (Repository.insert/update).
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ZitiQlError || err instanceof FilterError) {
    return new ApiError('INVALID_FILTER', { cause: { code: 'UNHANDLED', message: err.message } });
  }
  // Damage names the entity and field, so the operator knows what to restore; the request id finds it in the log.
  if (err instanceof DamagedRowError) return new ApiError('STORE_UNAVAILABLE', { message: err.message });
  const store = storeFailure(err);
  if (store) {
    // Sent as Retry-After by the error path, as the login throttle's refusals are.
    const err = new ApiError('STORE_UNAVAILABLE', { message: store });
    return Object.assign(err, { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
  }
  return new ApiError('UNHANDLED');
}

/**
 * The database failing under the controller (disk full, read-only or damaged file, PostgreSQL gone or out of
 * space): not the client's mistake and not a bug, so a 503 that says which, and nothing was written. The details
 * still go to the log with the request id.
 */
function storeFailure(err: unknown): string | undefined {
  if (err instanceof StoreUnavailableError) return err.message;
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (code === 'SQLITE_FULL' || code === '53100') return 'the database is full (no space left): nothing was written';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY'))
    return 'the database cannot be written (I/O error or read-only file): nothing was written';
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB')
    return 'the database file is damaged: restore it from a backup';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'the database is locked by another process: try again';
  // PostgreSQL: deadlocks and serialisation failures the driver retried as often as it does, then gave up on.
  if (code === '40P01' || code === '40001') return 'the database is busy with conflicting writes: try again';
  // Out of connections (53300) or memory (53200); 53100 (disk full) is above.
  if (code.startsWith('53')) return 'the database server is out of connections or memory: try again';
  // Connection failures (08), the server shutting down, restarting or starting up (57P01-57P04), the network.
  if (code.startsWith('08') || code.startsWith('57P') || NETWORK_ERRORS.has(code)) {
    return 'the database server cannot be reached: try again';
  }
  return undefined;
}

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
