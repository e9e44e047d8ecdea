// Deciding which CA bundle to trust for a controller, and proving the controller really chains to it.
// The CA bundle download is the CLI's only request made without certificate verification: what it returns is
// shown to the user (or checked against a pinned fingerprint) before anything is trusted.
import { X509Certificate } from 'node:crypto';
import type { IO } from '../console/io.js';
import { DeclinedError, FailureError, UsageError } from '../console/errors.js';
import { suggestCommand } from '../console/command-hint.js';
import type { Selection } from '../console/command-hint.js';
import { createApiClient, DEFAULT_TIMEOUT_MS, toTransportError, UntrustedCertificateError } from './http.js';
import type { NetOptions } from './http.js';
import { createTransport } from './transport.js';
import { certificatePems } from '../protocol/pem.js';
import { readNamedFile } from '../console/file-problem.js';

export interface TrustOptions extends NetOptions {
  /** Normalised controller base URL. */
  url: string;
  /** The bundle a profile already trusts for this controller (a re-login keeps it while it still works). */
  knownCaPem?: string;
  /** `--ca FILE` */
  caFile?: string;
  /** `--ca-fingerprint SHA256` */
  caFingerprint?: string;
  /** How the user gave caFile and caFingerprint, for messages: the flags, or CTL_CA / CTL_CA_FINGERPRINT. */
  names?: { caFile: string; caFingerprint: string };
  /** `--yes`: accept the served bundle without asking. */
  yes?: boolean;
  /** The options that select the profile being logged in: the login its refusals suggest must act on it too. */
  selection?: Selection;
  io: IO;
  confirm(message: string): Promise<boolean>;
}

export interface TrustDecision {
  /** Undefined when the system trust store already verifies the controller. */
  caPem?: string;
  caFingerprint?: string;
}

const CA_PATH = '/.well-known/est/cacerts';

/** `AB:CD:..`, `abcd..`, `sha256 Fingerprint=AB:..` (openssl) all become 64 upper-case hex digits. */
export function normalizeFingerprint(input: string): string {
  const hex = input
    .replace(/^\s*sha-?256\s*(?:fingerprint)?\s*[=:]?\s*/i, '')
    .replace(/[\s:]/g, '')
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new UsageError(`'${input}' is not a SHA-256 fingerprint`, [
      'expected 64 hex digits, colons optional, e.g. as `ctl login` prints it',
    ]);
  }
  return hex;
}

/** The fingerprint a profile records: the bundle's root (self-signed), else its first certificate. */
export function bundleFingerprint(bundle: string): string {
  const certs = certificatePems(bundle).map((p) => new X509Certificate(p));
  return (certs.find((c) => c.subject === c.issuer) ?? certs[0]).fingerprint256;
}

/** Lines shown before asking, and by `ctl profile show`: who each CA is and its fingerprint. */
async function describeBundle(bundle: string): Promise<string[]> {
  const { certSummary } = await import('../protocol/pkcs7.js');
  return certificatePems(bundle).flatMap((pem, i) => {
    const s = certSummary(pem);
    return [
      `  [${i + 1}] subject: ${s.subject}`,
      `      issuer:  ${s.issuer === s.subject ? '(self-signed)' : s.issuer}`,
      `      SHA-256: ${s.sha256}`,
      `      expires: ${s.notAfter}${s.isCa ? '' : ' (not a CA certificate)'}`,
    ];
  });
}

async function readCaFile(file: string, flag: string): Promise<string> {
  const text = await readNamedFile(file, flag);
  const pems = certificatePems(text);
  if (pems.length === 0) throw new UsageError(`${flag} ${file} holds no PEM certificate`);
  try {
    for (const p of pems) new X509Certificate(p);
  } catch (err) {
    throw new UsageError(`${flag} ${file} holds an invalid certificate: ${(err as Error).message}`);
  }
  return pems.join('');
}

/** GET {url}/.well-known/est/cacerts WITHOUT verifying the server: the one deliberate exception. */
export async function fetchCaBundle(url: string, net: NetOptions = {}): Promise<string> {
  const timeoutMs = net.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const target = new URL(url + CA_PATH);
  net.trace?.(`GET ${target.href} (without verifying the server: the CA bundle to show)`);
  const insecure = createTransport({ rejectUnauthorized: false });
  let status: number;
  let body: string;
  try {
    const headers = { accept: 'application/pkcs7-mime' };
    const res = await insecure.send(target, { method: 'GET', headers, signal: AbortSignal.timeout(timeoutMs) });
    status = res.status;
    body = res.text;
  } catch (err) {
    throw toTransportError(err, target, timeoutMs);
  } finally {
    void insecure.close();
  }
  if (status !== 200) {
    throw new FailureError(`${url} does not serve a CA bundle at ${CA_PATH} (HTTP ${status})`, [
      'is this an OpenZiti controller? If it is, trust its CA with --ca FILE',
    ]);
  }
  const { parsePkcs7Certs } = await import('../protocol/pkcs7.js');
  try {
    return parsePkcs7Certs(body).join('');
  } catch (err) {
    throw new FailureError(`the CA bundle served by ${url} cannot be read: ${(err as Error).message}`);
  }
}

/**
 * The certificates of `bundle` a pinned fingerprint vouches for: the pinned one, the CAs that issued it (needed to
 * complete the chain) and those it issued. Anything else a man in the middle might add beside it is left out.
 */
export function pinnedSubset(bundle: string, fingerprint: string): string | undefined {
  const want = normalizeFingerprint(fingerprint);
  const certs = certificatePems(bundle).map((pem) => ({ pem, x: new X509Certificate(pem) }));
  const pinned = certs.find((c) => normalizeFingerprint(c.x.fingerprint256) === want);
  if (!pinned) return undefined;
  const issued = (child: X509Certificate, parent: X509Certificate) =>
    child !== parent && child.checkIssued(parent) && child.verify(parent.publicKey);
  const kept = new Set([pinned]);
  const walk = (step: (member: X509Certificate, other: X509Certificate) => boolean) => {
    for (let frontier = [pinned]; frontier.length > 0; ) {
      frontier = certs.filter((c) => !kept.has(c) && frontier.some((m) => step(m.x, c.x)));
      for (const c of frontier) kept.add(c);
    }
  };
  walk((member, other) => issued(member, other)); // ancestors
  walk((member, other) => issued(other, member)); // descendants
  return certs
    .filter((c) => kept.has(c))
    .map((c) => c.pem)
    .join('');
}

/** A verified request: resolves when the server's chain verifies against `caPem` (or the system store). */
async function verifyChain(url: string, caPem: string | undefined, net: NetOptions): Promise<void> {
  // Any HTTP status proves the TLS handshake verified; only transport errors matter here.
  await createApiClient({ baseUrl: url, caPem, ...net }).request('GET', '/edge/client/v1/version', {
    anonymous: true,
    throwHttpErrors: false,
  });
}

/** Like verifyChain, but for a bundle just chosen: failing means it must not be saved. */
export async function verifyChosen(url: string, caPem: string, what: string, net: NetOptions): Promise<TrustDecision> {
  try {
    await verifyChain(url, caPem, net);
  } catch (err) {
    if (!(err instanceof UntrustedCertificateError)) throw err;
    throw new FailureError(`the TLS certificate of ${url} does not chain to ${what}; nothing was saved`, [
      `TLS reported ${err.reason}`,
    ]);
  }
  return { caPem, caFingerprint: bundleFingerprint(caPem) };
}

/** Whether the controller is already trusted by `caPem`; false only when its chain fails verification. */
async function alreadyTrusted(url: string, caPem: string | undefined, net: NetOptions): Promise<boolean> {
  try {
    await verifyChain(url, caPem, net);
    return true;
  } catch (err) {
    if (err instanceof UntrustedCertificateError) return false;
    throw err;
  }
}

/**
 * A controller that no longer chains to the CA a profile trusts may have been rebuilt, or may be someone else: --yes
 * and the first-contact prompt must not paper over that. Nothing is trusted or sent; re-trusting is an explicit
 * --ca-fingerprint (of the new CA, checked out of band) or --ca FILE.
 */
async function changedCa(
  url: string,
  knownCaPem: string,
  selection: Selection | undefined,
  net: NetOptions,
): Promise<FailureError> {
  const served = await fetchCaBundle(url, net).catch(() => undefined);
  const now = served ? bundleFingerprint(served) : undefined;
  return new FailureError(`the CA of ${url} has changed since this profile trusted it; nothing was sent to it`, [
    `trusted:    SHA-256 ${bundleFingerprint(knownCaPem)}`,
    `now served: ${now ? `SHA-256 ${now}` : '(the controller serves no readable CA bundle)'}`,
    'if the controller was rebuilt on purpose, check the new fingerprint with its operator, then trust it again with',
    `  ${suggestCommand(`ctl login ${url} --ca-fingerprint ${now ?? 'SHA256'}`, selection)}   (or --ca FILE)`,
  ]);
}

export async function establishTrust(opts: TrustOptions): Promise<TrustDecision> {
  const { url, io } = opts;
  const net: NetOptions = { timeoutMs: opts.timeoutMs, trace: opts.trace };
  const names = opts.names ?? { caFile: '--ca', caFingerprint: '--ca-fingerprint' };
  if (opts.caFile !== undefined) {
    return verifyChosen(url, await readCaFile(opts.caFile, names.caFile), `${names.caFile} ${opts.caFile}`, net);
  }
  if (opts.caFingerprint !== undefined) {
    const bundle = await fetchCaBundle(url, net);
    const subset = pinnedSubset(bundle, opts.caFingerprint);
    if (!subset) {
      throw new FailureError(
        `no CA certificate served by ${url} has the SHA-256 fingerprint ` +
          `${opts.caFingerprint} (${names.caFingerprint}); nothing was trusted`,
        ['the controller serves:', ...(await describeBundle(bundle))],
      );
    }
    return verifyChosen(url, subset, 'the pinned CA', net);
  }
  if (opts.knownCaPem !== undefined) {
    if (await alreadyTrusted(url, opts.knownCaPem, net)) {
      return { caPem: opts.knownCaPem, caFingerprint: bundleFingerprint(opts.knownCaPem) };
    }
    throw await changedCa(url, opts.knownCaPem, opts.selection, net);
  }
  if (await alreadyTrusted(url, undefined, net)) return {};

  const bundle = await fetchCaBundle(url, net);
  io.info(`The controller at ${url} is not trusted yet. It serves this CA bundle:`);
  for (const line of await describeBundle(bundle)) io.info(line);
  if (!opts.yes) {
    if (!io.canPrompt()) {
      throw new UsageError(`cannot ask whether to trust the CA of ${url}`, [
        'pass --ca-fingerprint SHA256 to pin a CA shown above, --ca FILE ' +
          'to trust a bundle you have, or --yes to trust what is served',
      ]);
    }
    if (!(await opts.confirm(`Trust this CA bundle for ${url}?`))) {
      throw new DeclinedError(`not trusting the CA of ${url}; nothing was saved`);
    }
  }
  return verifyChosen(url, bundle, 'the CA bundle it serves', net);
}

/**
 * Trust decided for the first of a network's controllers covers the others, which share its PKI: each must chain to
 * the same CA. One that does not is refused by name; one that does not answer now is verified on each connection.
 */
export async function extendTrust(
  urls: readonly string[],
  decision: TrustDecision,
  io: IO,
  net: NetOptions,
): Promise<void> {
  const [first, ...others] = urls;
  for (const url of others) {
    try {
      await verifyChain(url, decision.caPem, net);
    } catch (err) {
      if (!(err instanceof UntrustedCertificateError)) {
        const why = (err as Error).message;
        io.warn(`could not check the CA of ${url} now (${why}); its certificate is checked when it is used`);
        continue;
      }
      const served = await fetchCaBundle(url, net).catch(() => undefined);
      throw new FailureError(`${url} does not serve the CA trusted for ${first}; nothing was saved`, [
        `trusted:    ${decision.caFingerprint ? `SHA-256 ${decision.caFingerprint}` : 'the system CA store'}`,
        `${url} serves: ${served ? `SHA-256 ${bundleFingerprint(served)}` : '(no readable CA bundle)'}`,
        'the controllers of one profile must share one PKI (`ctl controller start --pki-key-file`)',
      ]);
    }
  }
}
