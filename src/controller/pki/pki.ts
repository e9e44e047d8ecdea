// The controller's own PKI: root CA -> intermediate CA -> TLS server certificate, kept in a data directory.
// Created once, then reused, so clients that trusted the root (trust-on-first-use) keep trusting it;
// only the server certificate (and, if it nears expiry, the intermediate) is reissued.
import { createHash, createPrivateKey, generateKeyPair, randomBytes, X509Certificate } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { certificatePems } from '../../protocol/pem.js';

export interface Pki {
  rootCertPem: string;
  intermediateCertPem: string;
  intermediateKeyPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  /** server leaf + intermediate, what the TLS server presents */
  serverChainPem: string;
  /** root + intermediate (+ earlier intermediates): what clients trust and what /.well-known/est/cacerts serves */
  caBundlePem: string;
  /**
   * Intermediates this data directory signed with before the current one was issued (oldest first). They sign
   * nothing any more, but the client and router certificates they issued stay valid: certificate login and router
   * renewal accept them (see issuedByThisPki), and the CA bundle carries them so peers can build those chains.
   */
  previousIntermediateCertPems: string[];
  trustDomain: string;
}

const FILES = {
  rootCert: 'root.cert.pem',
  rootKey: 'root.key.pem',
  intermediateCert: 'intermediate.cert.pem',
  intermediateKey: 'intermediate.key.pem',
  serverCert: 'server.cert.pem',
  serverKey: 'server.key.pem',
  previousIntermediates: 'intermediate-previous.cert.pem',
  trustDomain: 'trust-domain',
} as const;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Reissue a certificate this long before it expires, so a restart always leaves a usable one. */
const RENEW_BEFORE = 30 * DAY;
/** notBefore is backdated to tolerate clock skew between controller and clients. */
const BACKDATE = 5 * MINUTE;
const KEY_MODE = 0o600;
const CERT_MODE = 0o644;
const ORG = 'ctl';

const generateKeyPairAsync = promisify(generateKeyPair);

interface Issuer {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
}

export interface CertAndKey {
  certPem: string;
  keyPem: string;
}

/** A CA: its root, the intermediate that signs, earlier intermediates (certificates only), its trust domain. */
export interface CaParts {
  root: CertAndKey;
  intermediate: CertAndKey;
  previous: string[];
  trustDomain: string;
}

export async function loadOrCreatePki(dir: string, opts: { hosts: string[]; now?: Date }): Promise<Pki> {
  const now = opts.now ?? new Date();
  const hosts = requireHosts(opts.hosts);

  // mode only applies to directories mkdir creates; an existing directory is left as the operator set it.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(dir, name);

  // Root: never replaced once an intermediate exists, because clients pin it.
  let root = await readPair(file(FILES.rootCert), file(FILES.rootKey));
  let rootFresh = false;
  if (!root || !pairMatches(root) || !new X509Certificate(root.certPem).ca) {
    if ((await readText(file(FILES.intermediateCert))) !== undefined) {
      throw new Error(
        `PKI in ${dir} is inconsistent: ${FILES.rootCert}/${FILES.rootKey} are missing or do not match, ` +
          `but ${FILES.intermediateCert} exists; restore the root CA files or remove the directory`,
      );
    }
    // Nothing issued yet (first run, or a crash before the intermediate was written): start over.
    root = await createRoot(now);
    // Key before cert: a cert file on disk always has its key beside it.
    await writeAtomic(file(FILES.rootKey), root.keyPem, KEY_MODE);
    await writeAtomic(file(FILES.rootCert), root.certPem, CERT_MODE);
    rootFresh = true;
  }
  const rootX = new X509Certificate(root.certPem);

  let intermediate = rootFresh ? undefined : await readPair(file(FILES.intermediateCert), file(FILES.intermediateKey));
  // Earlier intermediates of this root (a fresh root has none: whatever the file holds belongs to another one).
  let previous = rootFresh ? [] : certsIssuedBy(await readText(file(FILES.previousIntermediates)), rootX);
  if (!intermediate || !intermediateUsable(intermediate, root, now)) {
    // The outgoing intermediate issued certificates that are still out there: keep it as a trust anchor (only its
    // certificate; its key signs nothing any more), written before its replacement so a crash cannot lose it.
    const outgoing = rootFresh ? undefined : await readText(file(FILES.intermediateCert));
    const kept = keepOutgoing(previous, outgoing, root);
    if (kept !== previous) {
      previous = kept;
      await writeAtomic(file(FILES.previousIntermediates), previous.map(withNewline).join(''), CERT_MODE);
    }
    intermediate = await createIntermediate(root, now);
    await writeAtomic(file(FILES.intermediateKey), intermediate.keyPem, KEY_MODE);
    await writeAtomic(file(FILES.intermediateCert), intermediate.certPem, CERT_MODE);
  }

  const server = await loadOrIssueServerCert(dir, intermediate, hosts, now);
  const trustDomain = await loadOrCreateTrustDomain(file(FILES.trustDomain), rootX);
  return assemblePki({ root, intermediate, previous, server, trustDomain });
}

/** The root and intermediate CA of a data directory, if it has made them (a controller's PKI before it is shared). */
export async function readCa(dir: string): Promise<CaParts | undefined> {
  const file = (name: string) => path.join(dir, name);
  const root = await readPair(file(FILES.rootCert), file(FILES.rootKey));
  const intermediate = await readPair(file(FILES.intermediateCert), file(FILES.intermediateKey));
  if (!root || !intermediate || !pairMatches(root) || !pairMatches(intermediate)) return undefined;
  const rootX = new X509Certificate(root.certPem);
  if (!issuedBy(intermediate.certPem, rootX)) return undefined;
  const previous = certsIssuedBy(await readText(file(FILES.previousIntermediates)), rootX);
  return { root, intermediate, previous, trustDomain: await loadOrCreateTrustDomain(file(FILES.trustDomain), rootX) };
}

/** A new self-signed root CA (ten years). */
export async function createRoot(now: Date): Promise<CertAndKey> {
  const key = await newRsaKey();
  const cert = buildCert({
    subjectCn: 'ctl Root CA',
    publicKey: key.publicKey,
    notBefore: new Date(now.getTime() - BACKDATE),
    notAfter: addYears(now, 10),
    kind: 'root',
  });
  cert.sign(key.privateKey, forge.md.sha256.create());
  return { certPem: certToPem(cert), keyPem: key.keyPem };
}

/** A new intermediate CA signed by `root` (five years, never beyond the root). */
export function createIntermediate(root: CertAndKey, now: Date): Promise<CertAndKey> {
  return issue(toIssuer(root), {
    subjectCn: 'ctl Intermediate CA',
    notBefore: new Date(now.getTime() - BACKDATE),
    notAfter: addYears(now, 5),
    kind: 'intermediate',
  });
}

/** The intermediate matches its key, was signed by `root`, and is not close to expiry. */
export function intermediateUsable(intermediate: CertAndKey, root: CertAndKey, now: Date): boolean {
  const signed = issuedBy(intermediate.certPem, new X509Certificate(root.certPem));
  return pairMatches(intermediate) && signed && !expiresSoon(intermediate.certPem, now);
}

/**
 * The earlier intermediates once `outgoing` is replaced: it joins them (if `root` signed it and it is not there
 * yet), so what it issued stays trusted. The same array when nothing changes.
 */
export function keepOutgoing(previous: string[], outgoing: string | undefined, root: CertAndKey): string[] {
  const kept = outgoing === undefined ? [] : certsIssuedBy(outgoing, new X509Certificate(root.certPem));
  const seen = new Set(previous.map((pem) => new X509Certificate(pem).fingerprint256));
  const added = kept.filter((pem) => !seen.has(new X509Certificate(pem).fingerprint256));
  return added.length === 0 ? previous : [...previous, ...added];
}

/**
 * This controller's server certificate in `dir`, issued by `intermediate` for `hosts` unless the one there is
 * still good (its key, signed by this intermediate, far from expiry, covering every host).
 */
export async function loadOrIssueServerCert(
  dir: string,
  intermediate: CertAndKey,
  hostNames: string[],
  now: Date,
): Promise<CertAndKey> {
  const hosts = requireHosts(hostNames);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const certFile = path.join(dir, FILES.serverCert);
  const keyFile = path.join(dir, FILES.serverKey);
  const intermediateX = new X509Certificate(intermediate.certPem);
  let server = await readPair(certFile, keyFile);
  if (
    !server ||
    !pairMatches(server) ||
    !issuedBy(server.certPem, intermediateX) ||
    expiresSoon(server.certPem, now) ||
    !coversHosts(server.certPem, hosts)
  ) {
    server = await issue(toIssuer(intermediate), {
      subjectCn: hosts[0],
      notBefore: new Date(now.getTime() - BACKDATE),
      notAfter: addYears(now, 1),
      kind: 'server',
      hosts,
    });
    await writeAtomic(keyFile, server.keyPem, KEY_MODE);
    await writeAtomic(certFile, server.certPem, CERT_MODE);
  }
  return server;
}

/** The PKI a controller serves with, from its parts. */
export function assemblePki(parts: CaParts & { server: CertAndKey }): Pki {
  const { root, intermediate, previous, server } = parts;
  return {
    rootCertPem: root.certPem,
    intermediateCertPem: intermediate.certPem,
    intermediateKeyPem: intermediate.keyPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    serverChainPem: withNewline(server.certPem) + withNewline(intermediate.certPem),
    caBundlePem: withNewline(root.certPem) + withNewline(intermediate.certPem) + previous.map(withNewline).join(''),
    previousIntermediateCertPems: previous,
    trustDomain: parts.trustDomain,
  };
}

function requireHosts(hosts: string[]): string[] {
  const normalized = normalizeHosts(hosts);
  if (normalized.length === 0) throw new Error('the server certificate needs at least one host');
  return normalized;
}

/**
 * Whether this PKI issued a certificate: its current intermediate or an earlier one signed it. Signatures only:
 * validity is for the caller to judge (an auth policy may allow expired certificates).
 */
export function issuedByThisPki(
  pki: Pick<Pki, 'intermediateCertPem' | 'previousIntermediateCertPems'>,
  leaf: X509Certificate,
): boolean {
  return [pki.intermediateCertPem, ...pki.previousIntermediateCertPems].some((pem) => {
    const issuer = parsedIntermediate(pem);
    return leaf.checkIssued(issuer) && leaf.verify(issuer.publicKey);
  });
}

/**
 * Intermediates parsed once: issuedByThisPki runs on every certificate login and router renewal. Keyed by the PEM
 * itself, so a rotated PKI can never be answered from a stale entry; the few intermediates a process sees bound it.
 */
const intermediates = new Map<string, X509Certificate>();
function parsedIntermediate(pem: string): X509Certificate {
  let cert = intermediates.get(pem);
  if (!cert) intermediates.set(pem, (cert = new X509Certificate(pem)));
  return cert;
}

/** The PEM certificates of `text` that `issuer` signed (others, and unreadable blocks, are dropped). */
function certsIssuedBy(text: string | undefined, issuer: X509Certificate): string[] {
  return certificatePems(text ?? '').filter((pem) => issuedBy(pem, issuer));
}

/** Trim, drop IPv6 brackets and zone ids (not valid in a SAN), and de-duplicate; order is kept (first = CN). */
function normalizeHosts(hosts: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of hosts) {
    let h = raw.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIP(h.replace(/%.*$/, '')) === 6) h = h.replace(/%.*$/, '');
    if (!isIP(h)) h = h.toLowerCase().replace(/\.$/, '');
    if (h && !seen.has(h)) {
      seen.add(h);
      out.push(h);
    }
  }
  return out;
}

// ---- certificate building (node-forge; all our keys are RSA, which is all forge handles) ----

interface CertSpec {
  subjectCn: string;
  notBefore: Date;
  notAfter: Date;
  kind: 'root' | 'intermediate' | 'server';
  hosts?: string[];
}

async function newRsaKey(): Promise<{
  keyPem: string;
  publicKey: forge.pki.rsa.PublicKey;
  privateKey: forge.pki.rsa.PrivateKey;
}> {
  // Native keygen: forge's pure-JS RSA keygen takes seconds.
  const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const forgeKey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { keyPem, privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

async function issue(issuer: Issuer, spec: CertSpec): Promise<CertAndKey> {
  const key = await newRsaKey();
  // A certificate must not outlive its issuer, or clients reject the chain before the leaf expires.
  const notAfter = new Date(Math.min(spec.notAfter.getTime(), issuer.cert.validity.notAfter.getTime()));
  const cert = buildCert({ ...spec, notAfter, publicKey: key.publicKey }, issuer.cert);
  cert.sign(issuer.key, forge.md.sha256.create());
  return { certPem: certToPem(cert), keyPem: key.keyPem };
}

function buildCert(
  spec: CertSpec & { publicKey: forge.pki.PublicKey },
  issuerCert?: forge.pki.Certificate,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = spec.publicKey;
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = spec.notBefore;
  cert.validity.notAfter = spec.notAfter;
  cert.setSubject([
    { shortName: 'O', value: ORG },
    { shortName: 'CN', value: spec.subjectCn },
  ]);
  cert.setIssuer(issuerCert ? issuerCert.subject.attributes : cert.subject.attributes);

  // forge's `keyIdentifier: true` would use the subject's own key, so the issuer's SKI is passed explicitly.
  const authorityKeyId = (issuerCert ?? cert).generateSubjectKeyIdentifier().getBytes();
  const extensions: object[] = [
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authorityKeyId },
  ];
  if (spec.kind === 'root') {
    extensions.push(
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    );
  } else if (spec.kind === 'intermediate') {
    extensions.push(
      // pathLen 0: this CA signs leaves (server, identities, routers) only, never further CAs.
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    );
  } else {
    extensions.push(
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      // clientAuth too: the controller presents this cert when it dials routers.
      { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
      {
        name: 'subjectAltName',
        // type 7 = iPAddress (forge encodes v4 and v6), type 2 = dNSName
        altNames: (spec.hosts ?? []).map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
      },
    );
  }
  cert.setExtensions(extensions);
  return cert;
}

/** 16 random bytes, high bit cleared (positive INTEGER) and first byte non-zero (minimal DER, exactly 16 bytes). */
function randomSerialHex(): string {
  const b = randomBytes(16);
  b[0] = b[0] & 0x7f || 0x01;
  return b.toString('hex');
}

/** forge writes CRLF line endings; node and openssl write LF, and PEMs get compared and concatenated. */
function certToPem(cert: forge.pki.Certificate): string {
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

function addYears(d: Date, years: number): Date {
  const out = new Date(d.getTime());
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

function toIssuer(pair: CertAndKey): Issuer {
  return {
    cert: forge.pki.certificateFromPem(pair.certPem),
    key: forge.pki.privateKeyFromPem(pair.keyPem) as forge.pki.rsa.PrivateKey,
  };
}

// ---- checks on existing files (node:crypto, which also copes with files someone replaced by hand) ----

function pairMatches(pair: CertAndKey): boolean {
  try {
    return new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem));
  } catch {
    return false;
  }
}

function issuedBy(certPem: string, issuer: X509Certificate): boolean {
  try {
    const x = new X509Certificate(certPem);
    return x.checkIssued(issuer) && x.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function expiresSoon(certPem: string, now: Date): boolean {
  return new Date(new X509Certificate(certPem).validTo).getTime() - now.getTime() < RENEW_BEFORE;
}

function coversHosts(certPem: string, hosts: string[]): boolean {
  const x = new X509Certificate(certPem);
  return hosts.every((h) =>
    isIP(h) ? x.checkIP(h) !== undefined : x.checkHost(h, { subject: 'never', wildcards: false }) !== undefined,
  );
}

// ---- trust domain ----

/** The trust domain a root implies when none was chosen: the same for every controller sharing the root. */
export function derivedTrustDomain(root: X509Certificate): string {
  return `ctl-${createHash('sha1').update(root.raw).digest('hex').slice(0, 8)}`;
}

async function loadOrCreateTrustDomain(file: string, root: X509Certificate): Promise<string> {
  const stored = (await readText(file))?.trim();
  if (stored !== undefined && stored !== '') {
    // SPIFFE trust domain charset; anything else would produce invalid URI SANs later.
    if (!/^[a-z0-9._-]+$/.test(stored)) throw new Error(`invalid trust domain in ${file}: ${JSON.stringify(stored)}`);
    return stored;
  }
  // Derived from the root so that, should the file be lost, it is recreated identically.
  const td = derivedTrustDomain(root);
  await writeAtomic(file, `${td}\n`, CERT_MODE);
  return td;
}

// ---- files ----

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function readPair(certFile: string, keyFile: string): Promise<CertAndKey | undefined> {
  const [certPem, keyPem] = await Promise.all([readText(certFile), readText(keyFile)]);
  return certPem !== undefined && keyPem !== undefined ? { certPem, keyPem } : undefined;
}

/** Write to a temp file in the same directory, fsync, then rename: readers see the old or the new file, never half. */
async function writeAtomic(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(data);
    await fh.chmod(mode); // open()'s mode is filtered by the umask
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await fh.close();
  await rename(tmp, file);
  // Persist the rename itself; not possible on every platform (e.g. Windows), hence best effort.
  try {
    const d = await open(path.dirname(file), 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    /* best effort */
  }
}

/** A PEM block ending in a newline, so that blocks can be concatenated into a bundle or chain. */
export function withNewline(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}
