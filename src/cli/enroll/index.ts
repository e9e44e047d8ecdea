// `ctl enroll JWT_FILE`: redeem an enrollment JWT. The JWT names the controller (iss); ctl fetches the CA bundle it
// serves, checks over TLS that the controller's certificate chains to that bundle, and that the JWT was signed by
// that certificate's key: a JWT from another controller (or a controller impersonating this one) is refused before
// anything is sent. For ott, the key is made here and only a CSR leaves the machine; the identity file (key,
// certificate, CA bundle, controller URL) is written with mode 0600 and never over an existing file without --force.
import { Command, Option } from '@commander-js/extra-typings';
import path from 'node:path';
import { COMPACT_JWS } from './compact-jws.js';
import { newKey } from './new-key.js';
import type { Deps } from '../deps.js';
import { FailureError, RejectedError, UsageError } from '../../console/errors.js';
import { ApiError } from '../../protocol/errors.js';
import { withMeta } from '../generic/meta.js';
import { causeLines } from '../output/failure.js';
import { shellQuote } from '../../console/command-hint.js';
import { readStdin } from '../generic/stdin.js';
import { newPassword } from './new-password.js';
import { readNamedFile } from '../../console/file-problem.js';

export interface EnrollOptions {
  jwtFile: string;
  out?: string;
  keyType?: string;
  username?: string;
  passwordStdin?: boolean;
  force?: boolean;
}

export function buildEnroll(deps: Deps, run = runEnroll) {
  return withMeta(new Command('enroll'), {
    description:
      'Redeem an enrollment JWT. For a one-time-token (ott) enrollment ctl makes a key here, sends only a ' +
      'certificate request, and writes an identity file (key, certificate, CA bundle, controller URL; mode 0600) ' +
      'for `ctl login --identity`. For a updb enrollment it sets the password. The JWT must be signed by the ' +
      'controller it names, whose certificate must chain to the ' +
      'CA bundle the controller serves: otherwise nothing is sent.',
    examples: [
      'ctl enroll laptop-7.jwt',
      'ctl enroll laptop-7.jwt --out ~/.config/ctl/laptop-7.json --key-type rsa',
      'echo "$PASSWORD" | ctl enroll alice.jwt --password-stdin',
    ],
  })
    .argument('<jwt-file>', 'the enrollment JWT an administrator handed out (`-` reads it from stdin)')
    .addOption(new Option('--out <file>', 'where to write the identity file (default: the JWT file name with .json)'))
    .addOption(
      new Option('--key-type <type>', 'the key to make: ec (P-256) or rsa (2048 bits)')
        .choices(['ec', 'rsa'])
        .default('ec'),
    )
    .addOption(
      new Option(
        '--username <user>',
        'updb: the username you expect (the enrollment decides it; a different one is reported)',
      ),
    )
    .addOption(new Option('--password-stdin', 'updb: read the new password from the first line of stdin'))
    .addOption(new Option('--force', 'overwrite an existing identity file'))
    .action(async (jwtFile, o) => run({ jwtFile, ...o }, deps));
}

interface Claims {
  em: string;
  iss: string;
  sub: string;
  jti: string;
  exp?: number;
}

/** The one JWT among the words of a file (mail text or a note around it is common), or a usage error naming it. */
export function findJwt(text: string, source: string): string {
  const found = text.split(/\s+/).filter((word) => COMPACT_JWS.test(word));
  if (found.length === 0) {
    throw new UsageError(`${source} holds no enrollment JWT (three base64url parts joined by dots)`);
  }
  if (new Set(found).size > 1) {
    throw new UsageError(`${source} holds ${found.length} JWTs: keep only the one to redeem`);
  }
  return found[0]!;
}

/** The claims of a JWT, read without checking anything: only to know where to go and what to check. */
async function readClaims(jwt: string): Promise<Claims> {
  const { decodeJwt } = await import('jose');
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(jwt);
  } catch (err) {
    throw new UsageError(`this is not an enrollment JWT: ${(err as Error).message}`);
  }
  for (const name of ['em', 'iss', 'sub', 'jti']) {
    if (typeof claims[name] !== 'string' || claims[name] === '')
      throw new UsageError(`this is not an enrollment JWT: it has no '${name}' claim`);
  }
  return claims as unknown as Claims;
}

export async function runEnroll(opts: EnrollOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const text = opts.jwtFile === '-' ? await readStdin(io) : await readNamedFile(opts.jwtFile);
  const jwt = findJwt(text, opts.jwtFile === '-' ? 'stdin' : opts.jwtFile);
  const claims = await readClaims(jwt);
  if (claims.em !== 'ott' && claims.em !== 'updb') {
    throw new UsageError(
      `this JWT is for '${claims.em}' enrollment, which ctl cannot redeem yet (ott and updb can be)`,
    );
  }
  if (claims.em === 'ott' && (opts.username !== undefined || opts.passwordStdin)) {
    throw new UsageError(
      'this JWT is for a certificate (ott) enrollment: --username and --password-stdin are for updb enrollments',
    );
  }
  if (claims.em === 'updb' && opts.out !== undefined)
    throw new UsageError('this JWT is for a updb enrollment, which makes no identity file: drop --out');
  if (claims.exp !== undefined && claims.exp * 1000 <= deps.clock().getTime()) {
    throw new RejectedError(`the enrollment JWT expired at ${new Date(claims.exp * 1000).toISOString()}`, [
      'ask an administrator for a new one: `ctl enrollment refresh ID`',
    ]);
  }
  const controller = controllerOf(claims.iss);

  // Everything that can fail locally does so before the one-time token is spent.
  const { reserveSecretFile } = await import('../generic/secret-file.js');
  const outFile = claims.em === 'ott' ? (opts.out ?? defaultOut(opts.jwtFile, claims.sub)) : undefined;
  const reserved = outFile ? await reserveSecretFile(outFile, { force: opts.force, flag: '--out' }) : undefined;
  try {
    const password = claims.em === 'updb' ? await newPassword(opts, deps) : undefined;
    const caPem = await verifiedController(controller, jwt, deps);
    const { createApiClient } = await import('../../client/http.js');
    const api = createApiClient({ baseUrl: controller, caPem, ...deps.net() });
    if (claims.em === 'updb') {
      const result = await redeem(() =>
        api.post<{ username?: string }>(
          `/enroll/updb?token=${encodeURIComponent(claims.jti)}`,
          // The password only: the enrollment decides the username, and a body's username must be four characters
          // or more (OpenZiti's rule too) where the enrollment's may be shorter. --username is compared below.
          { password },
          { api: 'client', anonymous: true },
        ),
      );
      const username = result.username ?? opts.username;
      if (opts.username && result.username && result.username !== opts.username) {
        io.warn(`the enrollment was for username '${result.username}', not '${opts.username}'`);
      }
      const login = `ctl login ${controller} -u ${username ? shellQuote(username) : 'USER'}`;
      io.info(`Enrolled: the password of ${username ?? 'the identity'} is set. Log in with \`${login}\``);
      return;
    }
    const key = await newKey(opts.keyType ?? 'ec');
    const { createCsr } = await import('../../protocol/csr.js');
    const csr = createCsr(key, claims.sub);
    const result = await redeem(() =>
      api.post<{ cert?: string; ca?: string }>(
        '/enroll/ott',
        { token: claims.jti, clientCsr: csr },
        { api: 'client', anonymous: true },
      ),
    );
    if (!result.cert) throw new FailureError(`${controller} accepted the enrollment but returned no certificate`);
    const { identityFileJson } = await import('./identity-file.js');
    const keyPem = key.export({ type: 'pkcs8', format: 'pem' }) as string;
    await reserved!.write(identityFileJson({ controller, cert: result.cert, key: keyPem, ca: caPem }));
    io.info(`Enrolled identity ${claims.sub}: wrote ${outFile} (key, certificate and CA bundle; keep it private)`);
    io.info(`Log in with \`ctl login --identity ${shellQuote(outFile!)}\``);
  } catch (err) {
    await reserved?.abandon();
    throw err;
  }
}

/**
 * `https://host:port` from the JWT's issuer (OpenZiti writes the controller's address there, sometimes with a path).
 */
function controllerOf(iss: string): string {
  let url: URL;
  try {
    url = new URL(iss);
  } catch {
    throw new UsageError(`the enrollment JWT's issuer '${iss}' is not a URL`);
  }
  if (url.protocol !== 'https:') throw new UsageError(`the enrollment JWT's issuer '${iss}' is not an https URL`);
  return url.origin;
}

function defaultOut(jwtFile: string, sub: string): string {
  if (jwtFile === '-') return `${sub}.json`;
  const base = path.basename(jwtFile).replace(/\.jwt$/i, '');
  return path.join(path.dirname(jwtFile), `${base}.json`);
}

/** The controller's answer to a redemption, its refusals said in words a person can act on. */
async function redeem<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const hints: Record<string, string> = {
      INVALID_ENROLLMENT_TOKEN: 'the token was already used, refreshed or deleted: ask an administrator for a new JWT',
      ENROLLMENT_EXPIRED: 'ask an administrator to refresh the enrollment (`ctl enrollment refresh ID`)',
      COULD_NOT_PROCESS_CSR: 'the controller refused the certificate request',
    };
    const details = [...causeLines(err.cause), ...(hints[err.code] ? [hints[err.code]] : [])];
    throw new RejectedError(`enrollment refused: ${err.message} (${err.code})`, details);
  }
}

/**
 * The controller's CA bundle, once proven: the bundle it serves, its TLS certificate chaining to that bundle, and
 * the JWT signed by that certificate's key (kid = its SHA-1). Throws a FailureError otherwise, having sent nothing.
 */
async function verifiedController(controller: string, jwt: string, deps: Deps): Promise<string> {
  const { fetchCaBundle } = await import('../../client/trust.js');
  const net = deps.net();
  const caPem = await fetchCaBundle(controller, net);
  const leaf = await serverCertificate(controller, caPem, net.timeoutMs ?? 30_000);
  const { createHash, X509Certificate } = await import('node:crypto');
  const { decodeProtectedHeader, jwtVerify } = await import('jose');
  const refuse = (why: string) =>
    new FailureError(`refusing to enroll with ${controller}: ${why}`, [
      'the JWT must come from this controller; if it was made by ' +
        'another one (or someone answers in its place), nothing is sent',
    ]);
  const kid = decodeProtectedHeader(jwt).kid;
  const fingerprint = createHash('sha1').update(leaf).digest('hex');
  if (kid !== undefined && kid !== fingerprint)
    throw refuse("the JWT was signed with another certificate than the controller's");
  try {
    await jwtVerify(jwt, new X509Certificate(leaf).publicKey, {
      algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'],
      currentDate: deps.clock(),
    });
  } catch (err) {
    throw refuse(`the JWT's signature does not verify with the controller's certificate (${(err as Error).message})`);
  }
  return caPem;
}

/** The DER of the controller's TLS certificate, from a handshake verified against `caPem` (and the host name). */
async function serverCertificate(controller: string, caPem: string, timeoutMs: number): Promise<Buffer> {
  const tls = await import('node:tls');
  const { isIP } = await import('node:net');
  const url = new URL(controller);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<Buffer>((resolve, reject) => {
    const socket = tls.connect(
      { host, port: Number(url.port || 443), ca: caPem, servername: isIP(host) ? undefined : host, timeout: timeoutMs },
      () => {
        const der = socket.getPeerCertificate().raw;
        socket.end();
        resolve(der);
      },
    );
    socket.on('timeout', () => socket.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        new FailureError(
          `refusing to enroll with ${controller}: its TLS certificate does ` +
            `not chain to the CA bundle it serves (${err.code ?? err.message})`,
        ),
      ),
    );
  });
}
