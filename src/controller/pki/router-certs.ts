// The certificate pair a router enrolls (or renews) with, as OpenZiti's router enrollment issues it: a server
// certificate for the router's listeners, carrying the host names, IP addresses, e-mail addresses and URIs its CSR
// asks for (OpenZiti copies exactly those four kinds of subjectAltName), and a client certificate for its
// connection to the controller, whose common name must be the router's id.
import { children, decodeOid, oid, pemDecode, readOne, seq, TAG, bits } from '../../protocol/der.js';
import { CsrError, OID } from '../../protocol/csr.js';
import { extension, EXTENSION_OIDS } from '../../protocol/x509.js';
import { acceptCsr, issueCert, subjectAltNames, type IssuedCert } from './issue.js';
import type { Pki } from './pki.js';

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

/** GeneralName tags OpenZiti copies from a router's CSR: rfc822Name [1], dNSName [2], URI [6], iPAddress [7]. */
const COPIED_NAMES = new Set([0x81, 0x82, 0x86, 0x87]);

const URI = 0x86;

/**
 * A SPIFFE id names an identity in this network: one signed into a router's certificate because its CSR asked for it
 * would pass for that identity, so OpenZiti drops them from router CSRs (any case of the scheme), and so does this.
 */
function isSpiffeId(uri: Buffer): boolean {
  return uri.toString('latin1').toLowerCase().startsWith('spiffe:');
}

/**
 * The subjectAltName entries a CSR requests (in its extensionRequest attribute), as encoded GeneralName elements of
 * the kinds OpenZiti copies, SPIFFE ids excepted; anything else (directory names, other names) is dropped, as there.
 */
export function requestedAltNames(pem: string): Buffer[] {
  const der = pemDecode(pem, 'CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST');
  const [info] = children(readOne(der, TAG.SEQUENCE).content);
  // version, subject, subjectPKInfo, then [0] attributes (absent in some hand-made requests)
  const attributes = children(info.content).find((el) => el.tag === 0xa0);
  if (!attributes) return [];
  const names: Buffer[] = [];
  for (const attribute of children(attributes.content)) {
    const [type, values] = children(attribute.content);
    if (!type || type.tag !== TAG.OID || decodeOid(type.content) !== EXTENSION_REQUEST || !values) continue;
    for (const extensions of children(values.content)) {
      for (const ext of children(extensions.content)) {
        const parts = children(ext.content);
        if (parts[0]?.tag !== TAG.OID || decodeOid(parts[0].content) !== EXTENSION_OIDS.subjectAltName) continue;
        const value = parts[parts.length - 1];
        if (value.tag !== TAG.OCTET_STRING) throw new CsrError('the requested subjectAltName is malformed');
        for (const name of children(readOne(value.content, TAG.SEQUENCE).content)) {
          if (COPIED_NAMES.has(name.tag) && !(name.tag === URI && isSpiffeId(name.content))) names.push(name.raw);
        }
      }
    }
  }
  return names;
}

/** The common name of an encoded Name (the first one; undefined when there is none). */
export function commonNameOf(subjectDer: Buffer): string | undefined {
  for (const rdn of children(readOne(subjectDer, TAG.SEQUENCE).content)) {
    for (const atv of children(rdn.content)) {
      const [type, value] = children(atv.content);
      if (type?.tag === TAG.OID && decodeOid(type.content) === OID.commonName && value)
        return value.content.toString('utf8');
    }
  }
  return undefined;
}

export interface RouterCerts {
  server: IssuedCert;
  client: IssuedCert;
}

/**
 * Checks both CSRs and signs both certificates; nothing is stored here, so a refusal (CsrError, naming which CSR)
 * changes nothing. The client CSR's common name must be the router's id, as OpenZiti requires.
 */
export function issueRouterCerts(
  pki: Pki,
  opts: { routerId: string; serverCsr: string; clientCsr: string; now: Date },
): RouterCerts {
  const serverCsr = withWhich('server', () => acceptCsr(opts.serverCsr));
  const serverNames = withWhich('server', () => requestedAltNames(opts.serverCsr));
  const clientCsr = withWhich('client', () => acceptCsr(opts.clientCsr));
  const clientNames = withWhich('client', () => requestedAltNames(opts.clientCsr));
  const cn = commonNameOf(clientCsr.subjectDer);
  if (cn !== opts.routerId)
    throw new CsrError(
      `the client CSR's common name must be the router's id ` +
        `(${opts.routerId}), not ${cn === undefined ? 'absent' : `'${cn}'`}`,
    );
  const basics = [extension(EXTENSION_OIDS.basicConstraints, true, seq())];
  const server = issueCert(pki, serverCsr, {
    now: opts.now,
    extensions: [
      ...basics,
      // digitalSignature and keyEncipherment (bits 0 and 2): TLS server keys of either kind.
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([0b1010_0000]), 5)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(SERVER_AUTH))),
      ...subjectAltNames(serverNames),
    ],
  });
  const client = issueCert(pki, clientCsr, {
    now: opts.now,
    extensions: [
      ...basics,
      extension(EXTENSION_OIDS.keyUsage, true, bits(Buffer.from([0b1011_0000]), 4)),
      extension(EXTENSION_OIDS.extKeyUsage, false, seq(oid(EXTENSION_OIDS.clientAuth))),
      ...subjectAltNames(clientNames),
    ],
  });
  return { server, client };
}

/** Runs a CSR step, saying in any refusal which of the two CSRs it was about. */
function withWhich<T>(which: 'server' | 'client', step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof CsrError) throw new CsrError(`${which} CSR: ${err.message}`);
    throw new CsrError(`${which} CSR: the request cannot be parsed: ${(err as Error).message}`);
  }
}
