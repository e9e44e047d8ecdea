import type { IncomingMessage, ServerResponse } from 'node:http';

// `Controller.inject` runs a request through the pipeline without a socket, for tests, with light-my-request: a
// devDependency, which the build leaves out of dist/. Tests have it; an installed ctl (no devDependencies) is told
// what is missing and why, where node alone would say only "Cannot find package".

export interface InjectRequest {
  method: string;
  /** Path and query, e.g. `/edge/management/v1/identities?limit=5`. */
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer | object;
}

export interface InjectResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** The body's bytes (a PNG, for instance, which `body` as text would mangle). */
  rawPayload: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whatever JSON the route answered, field by field
  json(): any;
}

/** What inject() takes from light-my-request, as a dynamic import yields it. */
type LightMyRequest = Pick<typeof import('light-my-request'), 'inject'>;

/** What inject() says when light-my-request cannot be loaded for want of a module; other failures pass unchanged. */
function injectUnavailable(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return err;
  return new Error(
    'inject() needs light-my-request, a devDependency of ctl, and it is not installed: inject() runs requests ' +
      'in-process for tests, so install the development dependencies (npm install in a checkout of ctl) to use it; ' +
      'a controller that serves (ctl controller start) does not need it',
    { cause: err },
  );
}

/** Runs one request through `handle` in-process. `load` imports light-my-request (tests give one that fails). */
export async function injectRequest(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  request: InjectRequest,
  load: () => Promise<LightMyRequest> = () => import('light-my-request'),
): Promise<InjectResponse> {
  const { inject } = await load().catch((err: unknown) => {
    throw injectUnavailable(err);
  });
  const res = await inject((req, res) => void handle(req, res), {
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    payload: request.payload as string,
    remoteAddress: '127.0.0.1',
  });
  return {
    statusCode: res.statusCode,
    headers: res.headers,
    body: res.body,
    rawPayload: res.rawPayload,
    json: () => JSON.parse(res.body),
  };
}
