import { createServer, type Server, type ServerOptions } from 'node:https';
import type { Socket } from 'node:net';

/**
 * What one client can make the listener hold before it has proved anything (docs/security.md, "Limits"). Every
 * number bounds time or memory that an unauthenticated peer controls; none is reached by a well-behaved client.
 */
export interface ServerLimits {
  /** A TLS handshake must finish within this (node's default is 120 s). */
  handshakeTimeoutMs: number;
  /** All request headers must arrive within this (slow-header clients). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (slow-body clients; node's default is 300 s). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often node checks the two timeouts above; a check can only be as precise as this. */
  checkIntervalMs: number;
  /** Open TCP connections per client address (IPv6: per /64); the next one is closed at once. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnectionsPerAddress: 64,
};

/**
 * TLS 1.2 suites with forward secrecy only (ECDHE), AEAD first; TLS 1.3 suites all have it. RSA key exchange and
 * CBC suites are not offered.
 */
export const TLS_CIPHERS = [
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_AES_128_GCM_SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
].join(':');

/**
 * The HTTPS listener with the limits applied: timeouts, forward-secret ciphers, a per-address connection cap.
 * With `clientCa`, the server asks every client for a certificate (certificate authentication, `POST
 * /authenticate?method=cert`) but requires none: a client without one still connects, and a certificate that does
 * not verify against `clientCa` still completes the handshake; the request handler decides what it is worth.
 */
export function createListener(
  tls: { key: string; cert: string; clientCa?: string },
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Server {
  const options: ServerOptions = {
    key: tls.key,
    cert: tls.cert,
    ...(tls.clientCa ? { requestCert: true, rejectUnauthorized: false, ca: tls.clientCa } : {}),
    minVersion: 'TLSv1.2',
    ciphers: TLS_CIPHERS,
    honorCipherOrder: true,
    handshakeTimeout: limits.handshakeTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  };
  const server = createServer(options);
  capConnectionsPerAddress(server, limits.maxConnectionsPerAddress);
  return server;
}

/** The key a client address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64 prefix. */
export function addressKey(address: string | undefined): string {
  if (!address) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(':')) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  const bare = address.split('%')[0].toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array<string>(Math.max(8 - left.length - right.length, 0)).fill('0');
  return [...left, ...fill, ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}

/**
 * Counts open TCP connections per client address on the raw `connection` event (before TLS), and closes one
 * beyond the cap at once: hundreds of idle connections from one client cannot pin memory and sockets.
 */
export function capConnectionsPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const count = open.get(key) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
