// `--dry-run` for every command that writes: the command runs as usual (names are looked up, so the request shows
// the ids it would really carry), but each write is printed instead of sent. One module, so that a noun's own verb
// gets the same behaviour with two calls: addDryRun(command) when building, dryRunnable(cmd, deps, ...) in its action.
import { Option } from '@commander-js/extra-typings';
import type { Command, CommandUnknownOpts, OptionValues } from '@commander-js/extra-typings';
import type { ApiClient, ApiName, RequestOptions } from '../../client/types.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../protocol/envelope.js';
import type { Deps } from '../deps.js';
import { asFormat, isHuman } from '../output/formats.js';

/** A request that would be sent: what `--dry-run` prints. */
export interface PlannedRequest {
  method: string;
  /** The path on the controller, with its API prefix: `/edge/management/v1/services`. */
  path: string;
  body?: unknown;
}

/**
 * Thrown by a dry-run client after printing a create or update: what a command does after its write (print the new
 * id, fetch the enrollment JWT of the entity just made) depends on an answer that does not exist. dryRunnable ends
 * the command there, successfully.
 */
export class DryRunStop extends Error {
  constructor() {
    super('dry run: nothing sent');
    this.name = 'DryRunStop';
  }
}

export function addDryRun<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const description = 'print the request(s) that would be sent (method, path, body) and send nothing';
  return command.addOption(new Option('--dry-run', description));
}

export function isDryRun(command: CommandUnknownOpts): boolean {
  return command.opts().dryRun === true;
}

/**
 * Runs `work` with deps whose client prints writes instead of sending them when `--dry-run` was given (reads still
 * go to the controller: names must resolve to show the real body). Without the flag, `work` gets deps as they are.
 */
export async function dryRunnable(
  command: CommandUnknownOpts,
  deps: Deps,
  work: (deps: Deps) => Promise<void>,
): Promise<void> {
  if (!isDryRun(command)) return work(deps);
  try {
    await work(dryRunDeps(deps));
  } catch (err) {
    if (!(err instanceof DryRunStop)) throw err;
  }
}

/** Deps whose API client plans writes instead of sending them. */
export function dryRunDeps(deps: Deps): Deps {
  let client: Promise<ApiClient> | undefined;
  return { ...deps, api: () => (client ??= deps.api().then((api) => dryRunClient(api, (r) => printPlanned(deps, r)))) };
}

function apiPath(path: string, api: ApiName = 'management'): string {
  if (/^\/(?:edge\/|\.well-known\/|version)/.test(path)) return path;
  return `${api === 'client' ? CLIENT_BASE : MANAGEMENT_BASE}/${path.replace(/^\.?\/+/, '')}`;
}

/**
 * A client that reads through `api` and hands every write to `plan`. DELETEs answer as if done, so that a delete of
 * several entities shows each request; other writes stop the command (DryRunStop) once planned.
 */
export function dryRunClient(api: ApiClient, plan: (request: PlannedRequest) => void): ApiClient {
  const write = (method: string, path: string, body: unknown, opts?: RequestOptions): never => {
    plan({ method, path: apiPath(path, opts?.api), ...(body === undefined ? {} : { body }) });
    throw new DryRunStop();
  };
  return {
    baseUrl: api.baseUrl,
    get: (path, opts) => api.get(path, opts),
    list: (path, query, opts) => api.list(path, query, opts),
    post: async (path, body, opts) => write('POST', path, body, opts),
    put: async (path, body, opts) => write('PUT', path, body, opts),
    patch: async (path, body, opts) => write('PATCH', path, body, opts),
    delete: async <T>(path: string, opts?: RequestOptions) => {
      plan({ method: 'DELETE', path: apiPath(path, opts?.api) });
      return {} as T;
    },
    request: async (method, path, opts) => {
      const upper = method.toUpperCase();
      if (upper === 'GET' || upper === 'HEAD') return api.request(method, path, opts);
      if (upper === 'DELETE') {
        plan({ method: upper, path: apiPath(path, opts?.api) });
        return { status: 200, headers: {}, body: {} as never };
      }
      return write(upper, path, opts?.body, opts);
    },
  };
}

/**
 * The plan is the command's result, so it goes to stdout: as `METHOD PATH` and the indented JSON body for people,
 * as one JSON object per request with `-o json|yaml` (one per line: a delete may plan many).
 */
export function printPlanned(deps: Deps, request: PlannedRequest): void {
  const format = asFormat(deps.globals().output);
  if (!isHuman(format)) {
    deps.io.out(JSON.stringify(request));
    return;
  }
  deps.io.out(`${request.method} ${request.path}`);
  if (request.body !== undefined) deps.io.out(JSON.stringify(request.body, null, 2));
}
