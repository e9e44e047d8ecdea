// Test doubles for command tests: an ApiClient that records calls and answers from a route table (an unexpected
// request fails the test), Deps around it with buffer IO, scripted prompts, and a way to parse argv with a builder.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient, ListQuery, RequestOptions } from '../../client/types.js';
import { createTestIO } from '../../client/testing/test-io.js';
import type { TestIO } from '../../client/testing/test-io.js';
import type { ListEnvelope } from '../../protocol/envelope.js';
import type { Deps, GlobalOptions, Prompter } from '../deps.js';
import type { SessionManager } from '../../client/session-manager.js';

export interface Call {
  method: string;
  path: string;
  query?: ListQuery;
  body?: unknown;
}

/** A value to answer with, an error to throw, or a function of the call giving either. */
export type Reply = unknown;

export interface FakeApi extends ApiClient {
  calls: Call[];
}

/** `METHOD /path` → reply. `LIST /path` answers `api.list`: an array is wrapped in an envelope paged by the query. */
export function fakeApi(routes: Record<string, Reply>): FakeApi {
  const calls: Call[] = [];
  const answer = async (key: string, call: Call): Promise<unknown> => {
    calls.push(call);
    if (!(key in routes)) throw new Error(`unexpected request: ${key}`);
    const reply = routes[key];
    const value = typeof reply === 'function' ? (reply as (c: Call) => unknown)(call) : reply;
    if (value instanceof Error) throw value;
    return value;
  };
  const api: FakeApi = {
    calls,
    baseUrl: 'https://ctrl.test:1280',
    request: async () => {
      throw new Error('request() is not faked');
    },
    get: async <T>(path: string) => (await answer(`GET ${path}`, { method: 'GET', path })) as T,
    list: async <T>(path: string, query: ListQuery = {}) => {
      const value = await answer(`LIST ${path}`, { method: 'GET', path, query });
      return (Array.isArray(value) ? envelope(value, query) : value) as ListEnvelope<T>;
    },
    post: async <T>(path: string, body: unknown) => (await answer(`POST ${path}`, { method: 'POST', path, body })) as T,
    patch: async <T>(path: string, body: unknown) => (await answer(`PATCH ${path}`, { method: 'PATCH', path, body })) as T,
    put: async <T>(path: string, body: unknown) => (await answer(`PUT ${path}`, { method: 'PUT', path, body })) as T,
    delete: async <T>(path: string, _opts?: RequestOptions) => (await answer(`DELETE ${path}`, { method: 'DELETE', path })) as T,
  };
  return api;
}

/** The page of `rows` a list query asks for, as the controller would send it. */
export function envelope<T>(rows: T[], query: ListQuery = {}, totalCount = rows.length): ListEnvelope<T> {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 10;
  return { data: rows.slice(offset, offset + limit), meta: { pagination: { limit, offset, totalCount }, filterableFields: [] } };
}

export interface TestDeps extends Deps {
  io: TestIO;
  /** Messages of the prompts asked, in order. */
  prompts: string[];
}

export interface TestDepsOptions {
  api?: ApiClient;
  tty?: boolean;
  globals?: GlobalOptions;
  /** Answers to confirmation prompts, in order; a prompt beyond them fails the test. */
  confirms?: boolean[];
  /** Answers to text prompts, in order; a prompt beyond them fails the test. */
  inputs?: string[];
  now?: Date;
  env?: NodeJS.ProcessEnv;
}

export function testDeps(opts: TestDepsOptions = {}): TestDeps {
  const prompts: string[] = [];
  const confirms = [...(opts.confirms ?? [])];
  const inputs = [...(opts.inputs ?? [])];
  const unexpected = (message: string): never => {
    throw new Error(`unexpected prompt: ${message}`);
  };
  const prompter: Prompter = {
    input: async (message) => {
      prompts.push(message);
      const answer = inputs.shift();
      return answer === undefined ? unexpected(message) : answer;
    },
    password: async (message) => unexpected(message),
    confirm: async (message) => {
      prompts.push(message);
      const answer = confirms.shift();
      return answer === undefined ? unexpected(message) : answer;
    },
  };
  return {
    io: createTestIO({ tty: opts.tty }),
    env: opts.env ?? {},
    globals: () => opts.globals ?? {},
    api: async () => opts.api ?? fakeApi({}),
    // The default profile, current: the commands a message suggests need no --profile. Nothing else is faked.
    sessions: async () =>
      ({
        current: async () => ({ profileName: 'default', profileSource: 'default', selection: {} }),
      }) as unknown as SessionManager,
    prompter: async () => prompter,
    net: () => ({}),
    clock: () => opts.now ?? new Date('2025-11-21T12:00:00Z'),
    prompts,
  };
}

/** Parses argv (the words after the command's own name) with a built command, as commander does under ctl. */
export async function parse(command: CommandUnknownOpts, argv: string[]): Promise<void> {
  command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  await command.parseAsync(argv, { from: 'user' });
}

/** A `run` that keeps the options it is given: flag tests check argv → options without any I/O. */
export function capture<T>(): { run: (opts: T) => Promise<void>; last: () => T } {
  let seen: T | undefined;
  return {
    run: async (opts) => {
      seen = opts;
    },
    last: () => {
      if (seen === undefined) throw new Error('run was not called');
      return seen;
    },
  };
}
