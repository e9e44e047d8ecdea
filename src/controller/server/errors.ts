import { ApiError } from '../../protocol/errors.js';
import { ZitiQlError } from '../../protocol/zitiql/index.js';
import { DamagedRowError } from '../store/codec.js';
import { FilterError } from '../store/filter-sql.js';

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
  if (store) return new ApiError('STORE_UNAVAILABLE', { message: store });
  return new ApiError('UNHANDLED');
}

/**
 * The database failing under the controller (disk full, read-only or damaged file, PostgreSQL gone or out of
 * space): not the client's mistake and not a bug, so a 503 that says which, and nothing was written. The details
 * still go to the log with the request id.
 */
function storeFailure(err: unknown): string | undefined {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (code === 'SQLITE_FULL' || code === '53100') return 'the database is full (no space left): nothing was written';
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY')) return 'the database cannot be written (I/O error or read-only file): nothing was written';
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') return 'the database file is damaged: restore it from a backup';
  if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === '57P01' || code === '57P03' || code.startsWith('08')) return 'the database server cannot be reached: try again';
  return undefined;
}
