// A small DER reader and writer: just what certificate requests and certificates need. Reading hands back the
// exact bytes of each element (never a re-encoding), because signatures are over those bytes. Shared by the
// controller (parsing CSRs, issuing certificates) and the CLI (making CSRs); no dependency beyond Buffer.

import { pemBlocks } from './pem.js';
/** One element: its tag byte and where its header, content and end lie in `buf`. */
export interface Tlv {
  tag: number;
  /** The whole element, header included. */
  raw: Buffer;
  /** The content octets. */
  content: Buffer;
}

export class DerError extends Error {
  override name = 'DerError';
}

/** Reads the element at `offset`. Only definite, minimal lengths are DER; anything else is refused. */
export function readTlv(buf: Buffer, offset = 0): Tlv & { end: number } {
  if (offset + 2 > buf.length) throw new DerError('truncated element');
  const tag = buf[offset];
  // High tag numbers (0x1f) never occur in the structures read here.
  if ((tag & 0x1f) === 0x1f) throw new DerError('unsupported high tag number');
  let len = buf[offset + 1];
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0) throw new DerError('indefinite length is not DER');
    if (n > 4) throw new DerError('element too long');
    if (offset + 2 + n > buf.length) throw new DerError('truncated length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i];
    if (len < 0x80 || (n > 1 && buf[offset + 2] === 0)) throw new DerError('length is not minimally encoded');
    header += n;
  }
  const end = offset + header + len;
  if (end > buf.length) throw new DerError('truncated content');
  return { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end), end };
}

/** Reads exactly one element filling `buf` (trailing bytes are an error). */
export function readOne(buf: Buffer, expectTag?: number): Tlv {
  const tlv = readTlv(buf, 0);
  if (tlv.end !== buf.length) throw new DerError('trailing bytes after the element');
  if (expectTag !== undefined && tlv.tag !== expectTag)
    throw new DerError(`expected tag 0x${expectTag.toString(16)}, found 0x${tlv.tag.toString(16)}`);
  return tlv;
}

/** The elements inside a constructed element's content. */
export function children(content: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let offset = 0; offset < content.length; ) {
    const tlv = readTlv(content, offset);
    out.push(tlv);
    offset = tlv.end;
  }
  return out;
}

export function decodeOid(content: Buffer): string {
  if (content.length === 0) throw new DerError('empty OID');
  const parts: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new DerError('OID arc too large');
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  if (content[content.length - 1] & 0x80) throw new DerError('truncated OID');
  const first = parts.shift()!;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join('.');
}

// ---- writing ----

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
}

export const seq = (...items: Buffer[]) => tlv(TAG.SEQUENCE, ...items);
export const set = (...items: Buffer[]) => tlv(TAG.SET, ...items);
export const nullValue = () => tlv(TAG.NULL);
export const octets = (b: Buffer) => tlv(TAG.OCTET_STRING, b);
export const bool = (v: boolean) => tlv(TAG.BOOLEAN, Buffer.from([v ? 0xff : 0]));
export const utf8 = (s: string) => tlv(TAG.UTF8_STRING, Buffer.from(s, 'utf8'));
/** A BIT STRING of whole bytes (keys, signatures). */
export const bits = (b: Buffer, unusedBits = 0) => tlv(TAG.BIT_STRING, Buffer.from([unusedBits]), b);
/** [n] EXPLICIT, constructed context tag. */
export const explicit = (n: number, ...items: Buffer[]) => tlv(0xa0 | n, ...items);

/** A non-negative INTEGER from big-endian magnitude bytes (a leading zero is added when the high bit is set). */
export function unsignedInt(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return tlv(TAG.INTEGER, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInt = (n: number) => unsignedInt(Buffer.from([n]));

export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(TAG.OID, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280 4.1.2.5); whole seconds, UTC. */
export function time(d: Date): Buffer {
  const iso = d.toISOString(); // 2026-01-02T03:04:05.678Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  return d.getUTCFullYear() < 2050
    ? tlv(TAG.UTC_TIME, Buffer.from(`${digits.slice(2)}Z`))
    : tlv(TAG.GENERALIZED_TIME, Buffer.from(`${digits}Z`));
}

export function pemEncode(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** The DER inside the one PEM block, labelled one of `labels` (other blocks are an error, as OpenZiti refuses them). */
export function pemDecode(pem: string, ...labels: string[]): Buffer {
  const blocks = pemBlocks(pem);
  const label = labels[0];
  if (blocks.length === 0) throw new DerError(`no PEM block found (expected ${label})`);
  if (blocks.length > 1) throw new DerError(`expected one PEM block, found ${blocks.length}`);
  const { label: found, base64: b64 } = blocks[0];
  if (!labels.includes(found)) throw new DerError(`expected a PEM ${label}, found ${found}`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0) throw new DerError('PEM body is not base64');
  return Buffer.from(b64, 'base64');
}
