import { Argument, Command, Option } from '@commander-js/extra-typings';
import { readFile } from 'node:fs/promises';
import type { Deps } from '../deps.js';
import { UsageError } from '../../console/errors.js';
import { apiErrorFromResponse } from '../../client/http.js';
import { withMeta } from '../generic/meta.js';
import { readStdin } from '../generic/stdin.js';
import { decodeUtf8 } from '../../console/utf8.js';
import { fileProblem } from '../../console/file-problem.js';
import { completeWith } from '../completion/hints.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
  client?: boolean;
}

export function buildApi(deps: Deps, run = runApi) {
  return withMeta(new Command('api'), {
    description:
      'Call any controller endpoint with the stored session and print the JSON response. Paths are relative to ' +
      'the management API (or the client API with --client) unless they start with /edge/, /.well-known/ or ' +
      '/version. An error response is printed too, and sets the ' +
      'exit code like any other command (ctl help exit-codes).',
    examples: [
      'ctl api GET /identities',
      'ctl api GET \'/identities?filter=name contains "laptop"&limit=5\'',
      'ctl api POST /services --data \'{"name":"web","encryptionRequired":true}\'',
      'ctl api PATCH /identities/abc123 --data @patch.json',
      'ctl api GET /current-identity --client',
    ],
  })
    .addArgument(
      completeWith(new Argument('<method>', `HTTP method (${METHODS.join(', ')})`), {
        kind: 'values',
        values: METHODS,
      }),
    )
    .addArgument(new Argument('<path>', 'API path, with an optional query string'))
    .addOption(new Option('--data <json>', 'request body: JSON text, @FILE, or @- for stdin'))
    .addOption(new Option('--client', 'call the client API (/edge/client/v1) instead of the management API'))
    .action(async (method, path, o) => run({ method, path, ...o }, deps));
}

async function readBody(data: string, deps: Deps): Promise<string> {
  let text = data;
  if (data === '@-') text = await readStdin(deps.io);
  else if (data.startsWith('@')) {
    try {
      text = decodeUtf8(await readFile(data.slice(1)), data.slice(1));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read --data ${data}: ${fileProblem(err)}`);
    }
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
  }
  return text;
}

export async function runApi(opts: ApiOptions, deps: Deps): Promise<void> {
  const method = opts.method.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`unsupported method '${opts.method}'`, [`use one of ${METHODS.join(', ')}`]);
  }
  // Sent as typed (only checked to be JSON), so the controller sees exactly what the user wrote.
  const rawBody = opts.data === undefined ? undefined : await readBody(opts.data, deps);
  const api = await deps.api();
  const res = await api.request(method, opts.path, {
    api: opts.client ? 'client' : 'management',
    rawBody,
    headers: rawBody === undefined ? undefined : { 'content-type': 'application/json' },
    throwHttpErrors: false,
  });
  if (res.body !== undefined) deps.io.out(typeof res.body === 'string' ? res.body : JSON.stringify(res.body, null, 2));
  // The envelope is on stdout already; the error itself goes through the one mapping to exit codes (failure.ts).
  if (res.status >= 300) throw apiErrorFromResponse(res.status, res.body);
}
