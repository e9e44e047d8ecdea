import type { TLSSocket } from 'node:tls';
import type { Ctx } from '../../server/types.js';

/** The DER of the certificate the client presented on this connection, if any (none over a plain socket). */
export function peerCertificate(ctx: Ctx): Buffer | undefined {
  const socket = ctx.req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate(false);
  return cert?.raw && cert.raw.length > 0 ? cert.raw : undefined;
}
