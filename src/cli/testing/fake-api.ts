// Test-only ApiClient: answers from a table of stubbed requests and records every call. Importing it makes every
// test of the file check, after it runs, each fake made during it: a request nobody stubbed, or a stub nobody
// requested (a test that asserts less than it claims), fails the test.
import { afterEach } from 'node:test';
import type { ApiClient, ListQuery, RequestOptions } from '../../client/types.js';
import type { ListEnvelope } from '../../protocol/envelope.js';
import { notFound } from '../../protocol/errors.js';

export interface Call {
  method: string;
  path: string;
  query?: ListQuery;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A value to answer with, an error to throw, a function of the call giving either, or replies `inTurn`. */
export type Reply = unknown;

/** Replies given one per request, in order: a route asked more often than it has replies fails the test. */
class InTurn {
  constructor(readonly replies: Reply[]) {}
}

export function inTurn(...replies: Reply[]): Reply {
  return new InTurn(replies);
}

export interface FakeApi extends ApiClient {
  calls: Call[];
  /**
   * Throws if a request was not stubbed, or a stubbed request (or one of its replies in turn) was never made. Every
   * fake is checked after the test that made it; a test may check one earlier, which then is not checked again.
   */
  verify(): void;
}

/** Fakes made since the last check: each test checks those made while it ran. */
const unchecked: FakeApi[] = [];
afterEach(() => {
  for (const api of unchecked.splice(0)) api.verify();
});

/** `METHOD /path` → reply. `LIST /path` answers `api.list`: an array is wrapped in an envelope paged by the query. */
export function fakeApi(routes: Record<string, Reply>): FakeApi {
  const calls: Call[] = [];
  const used = new Set<string>();
  const unexpected: string[] = [];
  /** The reply stubbed for `key`, taking the next one of replies in turn; a request with none left is a miss. */
  const replyFor = (key: string): { reply: Reply } | undefined => {
    if (!(key in routes)) return undefined;
    const route = routes[key];
    if (!(route instanceof InTurn)) {
      used.add(key);
      return { reply: route };
    }
    return route.replies.length > 0 ? { reply: route.replies.shift() } : undefined;
  };
  /** `key` names the route (`GET /path`, `LIST /path`). */
  const answer = async (key: string, call: Call): Promise<unknown> => {
    calls.push(call);
    const found = replyFor(key);
    if (!found) {
      // Recorded as well as thrown: a command that swallows the error must not hide the request from the test.
      unexpected.push(key);
      throw new Error(`unexpected request: ${key}`);
    }
    const { reply } = found;
    const value = typeof reply === 'function' ? (reply as (c: Call) => unknown)(call) : reply;
    if (value instanceof Error) throw value;
    return value;
  };
  const call = (method: string, route: string, path: string, more: Partial<Call> = {}): Promise<unknown> =>
    answer(`${route} ${path}`, { method, path, ...more });
  const headers = (opts?: RequestOptions) => (opts?.headers ? { headers: opts.headers } : {});
  const api: FakeApi = {
    calls,
    baseUrl: 'https://ctrl.test:1280',
    request: async () => {
      throw new Error('request() is not faked');
    },
    get: async <T>(path: string, opts?: RequestOptions) => (await call('GET', 'GET', path, headers(opts))) as T,
    list: async <T>(path: string, query: ListQuery = {}) => {
      const value = await call('GET', 'LIST', path, { query });
      return (Array.isArray(value) ? envelope(value, query) : value) as ListEnvelope<T>;
    },
    post: async <T>(path: string, body: unknown, opts?: RequestOptions) =>
      (await call('POST', 'POST', path, { body, ...headers(opts) })) as T,
    patch: async <T>(path: string, body: unknown) => (await call('PATCH', 'PATCH', path, { body })) as T,
    put: async <T>(path: string, body: unknown) => (await call('PUT', 'PUT', path, { body })) as T,
    delete: async <T>(path: string, opts?: RequestOptions) => {
      const body = opts?.body === undefined ? {} : { body: opts.body };
      return (await call('DELETE', 'DELETE', path, { ...body, ...headers(opts) })) as T;
    },
    verify() {
      const index = unchecked.indexOf(api);
      if (index >= 0) unchecked.splice(index, 1);
      const problems = unexpected.map((key) => `${key} was requested but not stubbed`);
      for (const [key, reply] of Object.entries(routes)) {
        if (reply instanceof InTurn) {
          const left = reply.replies.length;
          if (left > 0) problems.push(`${key}: ${left} stubbed replies never requested`);
        } else if (!used.has(key)) problems.push(`${key} was stubbed but never requested`);
      }
      if (problems.length > 0) throw new Error(`fake API:\n  ${problems.join('\n  ')}`);
    },
  };
  unchecked.push(api);
  return api;
}

/** The page of `rows` a list query asks for, as the controller would send it. */
export function envelope<T>(rows: T[], query: ListQuery = {}, totalCount = rows.length): ListEnvelope<T> {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 10;
  const pagination = { limit, offset, totalCount };
  return { data: rows.slice(offset, offset + limit), meta: { pagination, filterableFields: [] } };
}

/**
 * The requests that resolving `refs` makes against a controller holding `rows` at `/plural`: each ref is tried as an
 * id (GET, a 404 for one that is not), and a ref that is no id is then looked up by exact name (the list filter).
 */
export function lookups(
  plural: string,
  rows: Array<{ id: string; name: string }>,
  refs: string[],
): Record<string, Reply> {
  const routes: Record<string, Reply> = {};
  for (const ref of refs) {
    const byId = rows.find((row) => row.id === ref);
    routes[`GET /${plural}/${ref}`] = byId ?? notFound(plural, ref);
    if (!byId) {
      const named = (row: { name: string }) => `name = ${JSON.stringify(row.name)}`;
      routes[`LIST /${plural}`] = (call: Call) => rows.filter((row) => call.query?.filter === named(row));
    }
  }
  return routes;
}
