import { Agent, request } from 'undici';
import { BENCH_ADMIN_PASSWORD, type ControllerProcess } from './controller-process.js';

/** The management API of a controller the bench started, logged in as its admin: JSON in, the answer's `data` out. */
export interface AdminApi {
  /** `https://host:port/edge/management/v1`. */
  base: string;
  /** The admin's session token (`zt-session`). */
  token: string;
  call(method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** Logs in to `ctl` as the admin bench/controller-process.ts starts it with; any answer not 2xx throws. */
export async function adminApi(ctl: ControllerProcess): Promise<AdminApi> {
  const base = `${ctl.url.replace(/\/$/, '')}/edge/management/v1`;
  const dispatcher = new Agent({ connect: { ca: ctl.caBundlePem } });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await request(`${base}${path}`, {
      method,
      dispatcher,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text}`);
    return (JSON.parse(text) as { data: unknown }).data;
  };
  const credentials = { username: 'admin', password: BENCH_ADMIN_PASSWORD };
  const { token } = (await call('POST', '/authenticate?method=password', credentials)) as { token: string };
  headers['zt-session'] = token;
  return { base, token, call, close: () => dispatcher.close() };
}
