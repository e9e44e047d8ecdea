import type { ApiClient, ListQuery, RequestOptions } from '../../client/types.js';
import { MAX_LIMIT, MAX_OFFSET } from '../../protocol/paging.js';

/**
 * Every row a list answers, page after page at the largest page size the controller serves. Past MAX_OFFSET the
 * controller pages no further: `beyond(rowsSoFar)` decides what then (warn and keep what came, or throw).
 */
export async function everyPage<T>(
  api: ApiClient,
  path: string,
  query: ListQuery,
  target: RequestOptions,
  beyond: (rowsSoFar: number) => void,
): Promise<{ rows: T[]; totalCount: number }> {
  const rows: T[] = [];
  let totalCount = 0;
  for (let offset = 0; ; ) {
    const page = await api.list<T>(path, { ...query, limit: MAX_LIMIT, offset }, target);
    rows.push(...page.data);
    totalCount = page.meta?.pagination?.totalCount ?? rows.length;
    offset += page.data.length;
    if (page.data.length === 0 || offset >= totalCount) break;
    if (offset > MAX_OFFSET) {
      beyond(rows.length);
      break;
    }
  }
  return { rows, totalCount };
}

/** The warning of a list that stopped at MAX_OFFSET. */
export function stoppedAt(rows: number): string {
  return `stopped after ${rows} rows: the controller pages no further than offset ${MAX_OFFSET}; narrow the filter`;
}
