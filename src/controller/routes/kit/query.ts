import { ApiError } from '../../../protocol/errors.js';
import type { ListParams } from '../../store/repository.js';

/** Reads the list query parameters (wire-protocol section 3): limit, offset, filter, sort, roleFilter, roleSemantic. */
export function listParams(query: URLSearchParams): ListParams {
  return {
    filter: query.get('filter') ?? undefined,
    sort: query.get('sort') ?? undefined,
    limit: integerParam(query, 'limit'),
    offset: integerParam(query, 'offset'),
    roleFilter: query.getAll('roleFilter'),
    roleSemantic: query.get('roleSemantic') ?? undefined,
  };
}

function integerParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) {
    throw new ApiError('INVALID_PAGINATION', {
      cause: { field: name, reason: `${name} must be an integer`, value: raw },
    });
  }
  return Number(raw);
}
