import { Command, Option } from '@commander-js/extra-typings';
import type { TrustFlags } from '../../client/session-manager.js';
import { normalizeControllerUrls } from '../../client/url.js';
import type { Deps } from '../deps.js';
import { profileSelection, suggestCommand } from '../../console/command-hint.js';
import { UsageError } from '../../console/errors.js';
import { withMeta } from '../generic/meta.js';
import { readStdin } from '../generic/stdin.js';
import { readNamedFile } from '../../console/file-problem.js';

export interface LoginOptions {
  url?: string;
  username?: string;
  passwordStdin?: boolean;
  yes?: boolean;
  ca?: string;
  caFingerprint?: string;
  totp?: string;
  /** `--totp-stdin`: the MFA code is the first line of stdin. */
  totpStdin?: boolean;
  /** `--identity FILE`: log in with the certificate of an identity file `ctl enroll` wrote. */
  identity?: string;
  /** `--cert FILE --key FILE`: log in with a client certificate and its key. */
  cert?: string;
  key?: string;
  /** `--ext-jwt FILE|-`: log in with a JWT of an external signer (src/cli/session/ext-jwt-login.ts). */
  extJwt?: string;
}

export function buildLogin(deps: Deps, run = runLogin) {
  return withMeta(new Command('login'), {
    description:
      'Log in to a controller, with a username and password or a client certificate, and keep the session in a ' +
      'profile (--profile or CTL_PROFILE, else the current one, else `default`). On ' +
      'first contact, shows the CA the controller serves and asks whether to trust it. Several controllers of one ' +
      'network (sharing a database and a PKI), separated by commas, make a profile that fails over between them.',
    examples: [
      'ctl login ctrl.example.com:1280 -u admin',
      'ctl login https://ctrl.example.com:1280 -u admin --profile prod',
      'ctl login https://ctrl.example.com:1280,https://ctrl2.example.com:1280 -u admin',
      'echo "$PASSWORD" | ctl login ctrl:1280 -u ci --password-stdin --ca-fingerprint 3A:7F:...:C2',
      'ctl login ctrl:1280 -u admin --ca ./controller-ca.pem --totp 123456',
      'oathtool --totp -b "$(cat totp.secret)" | CTL_PASSWORD=... ctl login ctrl:1280 -u ci --totp-stdin',
      'ctl login --identity laptop.json',
      'ctl login ctrl:1280 --cert laptop.crt --key laptop.key --ca ./controller-ca.pem',
      'ctl login ctrl:1280 --ext-jwt id-token.jwt',
      'get-token | ctl login ctrl:1280 --ext-jwt - --ca ./controller-ca.pem',
    ],
  })
    .argument(
      '[url]',
      'controller address, host[:port] or https://host:port, or several separated by commas ' +
        "(default: CTL_CONTROLLER, then the profile's)",
    )
    .addOption(new Option('-u, --username <user>', "user to log in as (default: CTL_USERNAME, then the profile's)"))
    .addOption(new Option('--password-stdin', 'read the password from the first line of stdin'))
    .addOption(
      new Option(
        '-y, --yes',
        'on first contact, trust the CA bundle the controller serves without asking (never a changed CA)',
      ),
    )
    .addOption(new Option('--ca <file>', 'trust this PEM CA bundle for the controller'))
    .addOption(
      new Option(
        '--ca-fingerprint <sha256>',
        'trust the served CA bundle only if a CA in it has this SHA-256 fingerprint',
      ),
    )
    .addOption(
      new Option(
        '--totp <code>',
        'MFA code (from the authenticator app, or a recovery code), if the controller asks for ' +
          'one; asked for in a terminal otherwise. A code works once, so it is safe on a command line',
      ),
    )
    .addOption(new Option('--totp-stdin', 'read the MFA code from the first line of stdin'))
    .addOption(
      new Option(
        '--identity <file>',
        'log in with the certificate of an identity file (`ctl enroll` writes one); its CA bundle is trusted',
      ),
    )
    .addOption(new Option('--cert <file>', 'log in with this client certificate (PEM; with --key)'))
    .addOption(new Option('--key <file>', 'the private key of --cert (PEM: PKCS#1, PKCS#8 or EC)'))
    .addOption(new Option('--ext-jwt <file>', 'log in with a JWT of an external signer, read from FILE (- for stdin)'))
    .action(async (url, o) => run({ url, ...o }, deps));
}

/** Flag combinations that cannot work, found before anything is read or asked. */
async function validate(opts: LoginOptions): Promise<void> {
  const trustFlags = [
    opts.yes && '--yes',
    opts.ca !== undefined && '--ca',
    opts.caFingerprint !== undefined && '--ca-fingerprint',
  ];
  const given = trustFlags.filter((f): f is string => typeof f === 'string');
  if (given.length > 1)
    throw new UsageError(`${given.join(' and ')} cannot be combined: choose one way to trust the controller`);
  const certFlags = [
    opts.identity !== undefined && '--identity',
    opts.cert !== undefined && '--cert',
    opts.key !== undefined && '--key',
  ].filter((f): f is string => typeof f === 'string');
  if (certFlags.length > 0) {
    const passwordFlags = [opts.username !== undefined && '-u', opts.passwordStdin && '--password-stdin'].filter(
      (f): f is string => typeof f === 'string',
    );
    if (passwordFlags.length > 0)
      throw new UsageError(
        `${certFlags[0]} logs in with a certificate: ${passwordFlags.join(' and ')} cannot be used with it`,
      );
    if (opts.identity !== undefined && (opts.cert !== undefined || opts.key !== undefined)) {
      throw new UsageError('--identity cannot be combined with --cert/--key: the identity file holds both');
    }
    if (opts.identity === undefined && (opts.cert === undefined) !== (opts.key === undefined)) {
      throw new UsageError(
        `${opts.cert === undefined ? '--key' : '--cert'} needs ${opts.cert === undefined ? '--cert' : '--key'} too`,
      );
    }
    if (opts.identity !== undefined && given.length > 0) {
      throw new UsageError(`--identity trusts the CA bundle in the identity file: ${given[0]} cannot be used with it`);
    }
  }
  if (opts.totpStdin && opts.totp !== undefined) throw new UsageError('--totp and --totp-stdin cannot be combined');
  if (opts.totpStdin && opts.passwordStdin) {
    throw new UsageError('--password-stdin and --totp-stdin cannot both read stdin', [
      'give the password with CTL_PASSWORD, or the code with --totp CODE',
    ]);
  }
  if (opts.totpStdin && opts.extJwt === '-') {
    throw new UsageError('--ext-jwt - and --totp-stdin cannot both read stdin', [
      'give the token in a file, or the code with --totp CODE',
    ]);
  }
  if (opts.url !== undefined) normalizeControllerUrls(opts.url);
  if (opts.caFingerprint !== undefined) {
    const { normalizeFingerprint } = await import('../../client/trust.js');
    normalizeFingerprint(opts.caFingerprint);
  }
}

/** The trust flags; without any, CTL_CA or CTL_CA_FINGERPRINT stand for --ca and --ca-fingerprint. */
function trustFlags(opts: LoginOptions, env: NodeJS.ProcessEnv): TrustFlags {
  if (opts.yes || opts.ca !== undefined || opts.caFingerprint !== undefined) {
    return { yes: opts.yes, caFile: opts.ca, caFingerprint: opts.caFingerprint };
  }
  return { caFile: env.CTL_CA || undefined, caFingerprint: env.CTL_CA_FINGERPRINT || undefined };
}

/**
 * The password, or how to ask for it. A prompt waits until the controller is trusted, so nobody types a password
 * for a controller they then refuse; a password that cannot be had fails now, before any request.
 */
async function passwordSource(
  opts: LoginOptions,
  deps: Deps,
  username: string,
): Promise<string | (() => Promise<string>)> {
  if (opts.passwordStdin) {
    const password = await readStdin(deps.io, { firstLine: true });
    if (password === '') throw new UsageError('--password-stdin was given but stdin holds no password');
    return password;
  }
  if (deps.env.CTL_PASSWORD) return deps.env.CTL_PASSWORD;
  if (deps.io.canPrompt()) return async () => (await deps.prompter()).password(`Password for ${username}:`);
  throw new UsageError('no password: pass --password-stdin (or set CTL_PASSWORD), or run in a terminal to be asked');
}

/** The MFA code given up front: --totp, or the first line of stdin with --totp-stdin. */
async function totpOf(opts: LoginOptions, deps: Deps): Promise<string | undefined> {
  if (!opts.totpStdin) return opts.totp;
  const code = (await readStdin(deps.io, { firstLine: true })).trim();
  if (code === '') throw new UsageError('--totp-stdin was given but stdin holds no code');
  return code;
}

/** `--identity FILE` or `--cert FILE --key FILE`: certificate authentication over mutual TLS. */
async function runCertificateLogin(opts: LoginOptions, deps: Deps): Promise<void> {
  const path = await import('node:path');
  const { checkCredential, readIdentityFile } = await import('../enroll/identity-file.js');
  const sessions = await deps.sessions();
  const { profileName } = await sessions.current();
  let request: Parameters<typeof sessions.loginWithCertificate>[0];
  if (opts.identity !== undefined) {
    const identity = await readIdentityFile(opts.identity);
    request = {
      url: opts.url ?? identity.controller,
      profileName,
      credential: { cert: identity.cert, key: identity.key },
      caPem: identity.ca,
      trust: {},
      files: { identityFile: path.resolve(opts.identity) },
      totp: await totpOf(opts, deps),
    };
  } else {
    const cert = await readNamedFile(opts.cert!, '--cert');
    const key = await readNamedFile(opts.key!, '--key');
    checkCredential(cert, key, `--cert ${opts.cert}`);
    request = {
      url: opts.url,
      profileName,
      credential: { cert, key },
      trust: trustFlags(opts, deps.env),
      files: { certFile: path.resolve(opts.cert!), keyFile: path.resolve(opts.key!) },
      totp: await totpOf(opts, deps),
    };
  }
  const result = await sessions.loginWithCertificate(request);
  deps.io.info(
    `Logged in to ${result.profile.controller} as ` +
      `${result.identityName ?? "the certificate's identity"} with a certificate (profile ${profileName})`,
  );
  if (result.replacedController) deps.io.info(`Profile ${profileName} pointed to ${result.replacedController} before.`);
  await warnIfMustEnroll(deps, result, profileName);
  await warnIfNotCurrent(deps, profileName);
}

/** An auth policy requires MFA the identity has not set up: the session can only enroll, so say how. */
async function warnIfMustEnroll(deps: Deps, result: { mfaEnrollmentRequired?: boolean }, profile: string) {
  if (!result.mfaEnrollmentRequired) return;
  const selection = profileSelection(profile, (await (await deps.sessions()).profiles()).current());
  deps.io.warn(
    'the controller requires MFA of this identity, which has not set it up: ' +
      `run \`${suggestCommand('ctl mfa enable', selection)}\` now (until then, other commands are refused)`,
  );
}

/**
 * A warning, not a hint: the next command acts as someone else. On stderr like every message (stdout carries only
 * results, which login has none of), so `ctl login ... -o json | jq` and scripts reading stdout are not disturbed.
 */
async function warnIfNotCurrent(deps: Deps, profileName: string): Promise<void> {
  const sessions = await deps.sessions();
  const next = deps.env.CTL_PROFILE ?? (await sessions.profiles()).current() ?? 'default';
  if (next !== profileName) {
    deps.io.warn(
      `profile ${profileName} is not the current profile: commands without --profile still use profile ${next}. ` +
        `Run \`ctl profile use ${profileName}\` to switch.`,
    );
  }
}

export async function runLogin(opts: LoginOptions, deps: Deps): Promise<void> {
  await validate(opts);
  if (opts.extJwt !== undefined) {
    const { runExtJwtLogin } = await import('./ext-jwt-login.js');
    const { profileName, result } = await runExtJwtLogin(opts, deps, trustFlags(opts, deps.env), () =>
      totpOf(opts, deps),
    );
    await warnIfMustEnroll(deps, result, profileName);
    return warnIfNotCurrent(deps, profileName);
  }
  if (opts.identity !== undefined || opts.cert !== undefined) return runCertificateLogin(opts, deps);
  const { io, env } = deps;
  const sessions = await deps.sessions();
  // Without --profile (or CTL_PROFILE), login renews the profile the next command will use: the current one.
  const { profileName } = await sessions.current();
  const existing = (await sessions.profiles()).get(profileName);
  // Everything that can be found missing is, before anyone is asked to type anything.
  if (opts.url === undefined && !env.CTL_CONTROLLER && !existing) {
    throw new UsageError('missing controller URL', ['example: ctl login ctrl.example.com:1280 -u admin']);
  }
  // The profile's user is a sensible default only for the controller it was saved for.
  const sameController =
    existing !== undefined &&
    (opts.url === undefined || normalizeControllerUrls(opts.url).includes(existing.controller));
  let username = opts.username ?? env.CTL_USERNAME ?? (sameController ? existing.username : undefined);
  if (username === undefined) {
    if (!io.canPrompt()) throw new UsageError('no user name: pass -u USER (or set CTL_USERNAME)');
    username = (await (await deps.prompter()).input('Username:')).trim();
  }
  const password = await passwordSource(opts, deps, username);

  const result = await sessions.login({
    url: opts.url,
    username,
    password,
    profileName,
    trust: trustFlags(opts, env),
    totp: await totpOf(opts, deps),
  });
  const url = result.profile.controller;
  io.info(`Logged in to ${url} as ${username} (profile ${profileName})`);
  if (result.replacedController) io.info(`Profile ${profileName} pointed to ${result.replacedController} before.`);
  await warnIfMustEnroll(deps, result, profileName);
  await warnIfNotCurrent(deps, profileName);
}
