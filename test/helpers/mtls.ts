/**
 * Requests over mutual TLS: the client presents a certificate and key (certificate authentication). Every response
 * is checked against OpenZiti's spec and the controller's served one, as HttpHelper does for its requests.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import { BASE_PATHS, type ApiName, validateResponse } from './spec.js';
import { checkServedResponse } from './served-spec.js';

export interface ClientCredential {
  cert: string;
  key: string;
}

export interface MtlsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

/** One request on a fresh connection (a client certificate is bound to the connection), verified against `caPem`. */
export async function mtlsRequest(
  target: { baseUrl: string; caPem: string },
  credential: ClientCredential | undefined,
  method: string,
  path: string,
  opts: { api?: ApiName; json?: unknown; token?: string } = {},
): Promise<MtlsResponse> {
  const api = opts.api ?? 'client';
  const url = new URL(target.baseUrl);
  const fullPath = `${BASE_PATHS[api]}${path}`;
  const payload = opts.json === undefined ? undefined : Buffer.from(JSON.stringify(opts.json));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (opts.token) headers['zt-session'] = opts.token;
  const raw = await new Promise<{ status: number; headers: MtlsResponse['headers']; text: string }>(
    (resolve, reject) => {
      const req = https.request(
        {
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port,
          method,
          path: fullPath,
          headers,
          ca: target.caPem,
          rejectUnauthorized: true,
          agent: false,
          ...(credential ? { cert: credential.cert, key: credential.key } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    },
  );
  const body = raw.text ? JSON.parse(raw.text) : undefined;
  assert.ok(raw.status < 500, `${method} ${fullPath} -> ${raw.status}: ${raw.text.slice(0, 500)}`);
  validateResponse(api, method, path, raw.status, body);
  await checkServedResponse(target, api, method, fullPath, raw.status, body);
  return { ...raw, body };
}
