import { ApiError } from '../../protocol/errors.js';
import { ZitiQlError } from '../../protocol/zitiql/index.js';
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
  return new ApiError('UNHANDLED');
}
