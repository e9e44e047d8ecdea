import type { IO } from '../../console/io.js';
import type { Pagination } from '../../protocol/envelope.js';
import { DEFAULT_LIMIT } from '../../protocol/paging.js';

/**
 * The line under a list (on stderr): which rows are shown out of how many, and how to get the rest, because a bare
 * "1-10 of 23" leaves users guessing (openziti/ziti#1479).
 */
export function pageFooter(page: Pagination, shown: number): string {
  const { offset, totalCount } = page;
  if (shown === 0)
    return offset > 0 ? `no rows at offset ${offset} (${totalCount} in total)` : `showing 0 of ${totalCount}`;
  const last = offset + shown;
  const range = `showing ${offset + 1}-${last} of ${totalCount}`;
  // A page of another size than the default is only the next one with its --limit again.
  const size = page.limit === DEFAULT_LIMIT ? '' : `--limit ${page.limit} `;
  return last < totalCount ? `${range} (next page: ${size}--offset ${last}, or --all)` : range;
}

/**
 * Whether rows exist beyond the page shown: machine formats mention it, so that a script
 * does not silently get one page.
 */
export function hasMore(page: Pagination, shown: number): boolean {
  return page.offset + shown < page.totalCount;
}

/**
 * The footer of a list, on stderr: under every table with rows, and in every format (json, yaml, -q) when rows
 * remain beyond the page, so that a script does not silently get one page.
 */
export function printFooter(io: IO, page: Pagination, shown: number, human: boolean): void {
  if ((human && shown > 0) || hasMore(page, shown)) io.info(pageFooter(page, shown));
}
