// `--advertise HOST[:PORT]`: the address clients reach a controller on, as OpenZiti's `edge.api.address`. The
// first one is the controller's public URL (its rows' API addresses in /controllers, the `iss` of the JWTs it
// signs, /version); every one is a name its server certificate covers. A controller behind a balancer or a NAT
// listens on one address and is reached on another.
import { isIP } from 'node:net';

/** An advertised address that is not HOST[:PORT]: the start is refused before anything is bound or written. */
export class AdvertiseError extends Error {
  override name = 'AdvertiseError';
}

export interface AdvertisedAddress {
  /** A DNS name or an IP address (IPv6 without brackets). */
  host: string;
  /** The port clients reach it on; absent: the listening port. */
  port?: number;
}

/** One label of a DNS name: letters, digits, `_` and inner `-`, at most 63 characters. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const DNS_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/** `host`, `host:port`, `1.2.3.4:port`, `[::1]:port` or a bare IPv6 address. */
export function parseAdvertised(value: string): AdvertisedAddress {
  const refuse = (why: string) =>
    new AdvertiseError(`--advertise ${value}: ${why}; expected HOST[:PORT], e.g. ctrl.example.com:1280`);
  if (isIP(value) === 6) return { host: value };
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*))(?::([^:]*))?$/.exec(value);
  if (!m) throw refuse('not a host name or address');
  const host = m[1] ?? m[2];
  if (m[1] !== undefined && isIP(host) !== 6) throw refuse('only an IPv6 address goes in brackets');
  if (m[1] === undefined && !isIP(host) && !DNS_NAME.test(host)) throw refuse('not a host name or address');
  if (m[3] === undefined) return { host };
  const port = /^\d{1,5}$/.test(m[3]) ? Number(m[3]) : NaN;
  if (!(port >= 1 && port <= 65535)) throw refuse('the port must be 1 to 65535');
  return { host, port };
}

/** `https://host:port` for the address, brackets around an IPv6 host; `port` when the address names none. */
export function urlOf(address: AdvertisedAddress, port: number): string {
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return `https://${host}:${address.port ?? port}`;
}
