// An identity provider's key set (JWKS), served over plain HTTP on loopback: the third party of external JWT
// logins, not the controller under test.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';

/** A signed ES256 token with `header` and `claims`. */
export async function signEs256(
  key: KeyObject,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', ...header } as { alg: string }).sign(key);
}

/** A local key-set server whose answer each test sets; counts its requests. */
export class KeySetServer {
  server: Server;
  hits = 0;
  handler: (res: ServerResponse) => void = (res) => res.end('{"keys":[]}');
  constructor() {
    this.server = createServer((_req, res) => {
      this.hits++;
      this.handler(res);
    });
  }
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks`;
  }
  serve(keys: { kid: string; key: KeyObject }[]): void {
    const body = JSON.stringify({
      keys: keys.map(({ kid, key }) => ({
        ...createPublicKey(key).export({ format: 'jwk' }),
        kid,
        use: 'sig',
        alg: 'ES256',
      })),
    });
    this.handler = (res) => {
      res.setHeader('content-type', 'application/json');
      res.end(body);
    };
  }
}
