import { ApiError } from '../../protocol/errors.js';
import { ZitiQlError } from '../../protocol/zitiql/index.js';
import { FilterError } from '../store/filter-sql.js';

/**
 * The one place where anything thrown becomes an API error. Client mistakes map to their 4xx codes; anything
 * unknown is an UNHANDLED 500 whose details go to the log only (the response carries the request id).
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ZitiQlError || err instanceof FilterError) {
    return new ApiError('INVALID_FILTER', { cause: { code: 'UNHANDLED', message: err.message } });
  }
  const unique = uniqueViolation(err);
  if (unique) {
    return new ApiError('COULD_NOT_VALIDATE', {
      cause: { field: unique.field, reason: `duplicate value in unique index on ${unique.table} store`, value: '' },
    });
  }
  return new ApiError('UNHANDLED');
}

/** better-sqlite3 reports `UNIQUE constraint failed: identities.name`; the field is what the client must change. */
function uniqueViolation(err: unknown): { table: string; field: string } | undefined {
  if (!(err instanceof Error) || (err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  const m = /UNIQUE constraint failed: (\w+)\.(\w+)/.exec(err.message);
  return m ? { table: m[1], field: m[2] } : undefined;
}
