// Test-only stand-in for a third-party controller: just the endpoints the client half of the CLI touches
// (CA bundle, version, authenticate with optional MFA, current identity/session, logout), over real TLS.
// End-to-end tests use the real embedded controller; this exists so client unit tests need no server code.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { certsOnlyPkcs7Base64 } from '../../protocol/pkcs7.js';
import { tlsFixture } from './tls-fixture.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StubOptions {
  users?: Record<string, string>;
  /** When set, password logins are partial until POST /authenticate/mfa carries this code. */
  mfaCode?: string;
  /** When set, POST /authenticate/mfa is refused as the embedded controller refuses too many wrong codes. */
  mfaThrottledSeconds?: number;
  /** Present the chain of an unrelated CA (a rebuilt controller) while still serving the original bundle. */
  presentOtherChain?: boolean;
  /** The sessions of another stub: two controllers of one network, whose shared database keeps them. */
  sessions?: Map<string, boolean>;
}

export interface StubController {
  url: string;
  requests: RecordedRequest[];
  /** token -> whether MFA is complete */
  sessions: Map<string, boolean>;
  close(): Promise<void>;
}

const M = '/edge/management/v1';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain' : 'application/json';
  res.writeHead(status, { 'content-type': type, ...headers }).end(text);
}

const apiError = (res: ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { error: { code, message, requestId: 'req1' }, meta: { apiVersion: '0.0.1' } });

export async function startStubController(opts: StubOptions = {}): Promise<StubController> {
  const tls = tlsFixture();
  const users = opts.users ?? { admin: 'admin-pw' };
  const sessions = opts.sessions ?? new Map<string, boolean>();
  const requests: RecordedRequest[] = [];
  const expiresAt = '2030-01-01T00:00:00.000Z';

  const sessionDetail = (token: string) => ({
    id: 'as1',
    token,
    identityId: 'id1',
    identity: { id: 'id1', name: 'Default Admin', entity: 'identities' },
    isMfaRequired: opts.mfaCode !== undefined,
    isMfaComplete: sessions.get(token) === true,
    expiresAt,
  });

  // Each branch answers through send or apiError and returns what they return (nothing), ending the routing.
  function route(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? '/', 'https://stub');
    const p = url.pathname;
    const token = req.headers['zt-session'] as string | undefined;
    const live = token !== undefined && sessions.has(token);
    const full = live && sessions.get(token) === true;
    const key = `${req.method} ${p}`;
    if (key === 'GET /.well-known/est/cacerts') {
      return send(res, 200, certsOnlyPkcs7Base64([tls.caBundlePem]), { 'content-type': 'application/pkcs7-mime' });
    }
    if (key === 'GET /edge/client/v1/version' || key === `GET ${M}/version`) {
      return send(res, 200, { data: { version: 'v9.9.9', revision: 'abc', buildDate: '2030-01-01' }, meta: {} });
    }
    if (key === `POST ${M}/authenticate`) {
      const { username, password } = JSON.parse(body || '{}') as { username?: string; password?: string };
      if (url.searchParams.get('method') !== 'password' || !username || users[username] !== password) {
        return apiError(res, 401, 'INVALID_AUTH', 'The authentication request failed');
      }
      const issued = randomUUID();
      sessions.set(issued, opts.mfaCode === undefined);
      return send(res, 200, { data: sessionDetail(issued), meta: {} }, { 'zt-session': issued });
    }
    if (!live)
      return apiError(
        res,
        401,
        'UNAUTHORIZED',
        'The request could not be completed. The session is not authorized or the credentials are invalid',
      );
    if (key === `POST ${M}/authenticate/mfa`) {
      if (opts.mfaThrottledSeconds !== undefined) {
        const message = `too many wrong MFA codes; try again in ${opts.mfaThrottledSeconds} s`;
        return apiError(res, 429, 'SERVER_TOO_MANY_REQUESTS', message);
      }
      if ((JSON.parse(body || '{}') as { code?: string }).code !== opts.mfaCode) {
        return apiError(res, 400, 'MFA_INVALID_TOKEN', 'The supplied MFA token is invalid');
      }
      sessions.set(token, true);
      return send(res, 200, { data: {}, meta: {} });
    }
    if (key === `GET ${M}/current-api-session`) return send(res, 200, { data: sessionDetail(token), meta: {} });
    if (key === `DELETE ${M}/current-api-session`) {
      sessions.delete(token);
      return send(res, 200, { data: {}, meta: {} });
    }
    if (!full) return apiError(res, 401, 'UNAUTHORIZED', 'MFA is not complete');
    if (key === `GET ${M}/current-identity`) {
      return send(res, 200, { data: { id: 'id1', name: 'Default Admin', isAdmin: true }, meta: null });
    }
    if (key === `GET ${M}/identities`) {
      return send(res, 200, {
        data: [],
        meta: { pagination: { limit: 10, offset: 0, totalCount: 0 }, filterableFields: [] },
      });
    }
    if (key === `GET ${M}/admin-only`) return apiError(res, 401, 'UNAUTHORIZED', 'not an admin');
    if (key === `GET ${M}/plain-error`) return send(res, 502, 'upstream unavailable');
    if (key === `GET ${M}/hang`) return; // never answers: timeout tests
    return apiError(res, 404, 'NOT_FOUND', 'The resource requested was not found or is no longer available');
  }

  const server = createServer(
    opts.presentOtherChain
      ? { key: tls.otherServerKeyPem, cert: tls.otherServerChainPem }
      : { key: tls.serverKeyPem, cert: tls.serverChainPem },
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        route(req, res, body);
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    requests,
    sessions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
