// Which controller a command talks to, with which credentials, and the login/logout life cycle of sessions.
// Precedence (`ctl help environment`): an explicit --profile wins outright; otherwise CTL_PROFILE selects the
// profile and CTL_CONTROLLER / CTL_TOKEN / CTL_USERNAME / CTL_PASSWORD override its values; then the current
// profile (`ctl profile use`); then the profile named `default`.
import type { Prompter } from '../console/prompter.js';
import { AuthError, UsageError } from '../console/errors.js';
import type { IO } from '../console/io.js';
import { profileSelection, shellQuote, suggestCommand } from '../console/command-hint.js';
import type { Selection } from '../console/command-hint.js';
import { ApiError } from '../protocol/errors.js';
import { createApiClient, UntrustedCertificateError } from './http.js';
import { tlsSessionStore } from './tls-sessions.js';
import type { NetOptions } from './http.js';
import { openProfileStore, profileControllers, unknownProfile, validateProfileName } from './profiles.js';
import type { Profile, ProfileStore } from './profiles.js';
import { sendMfaCode } from './mfa-code.js';
import { establishTrust, extendTrust } from './trust.js';
import type { TrustDecision } from './trust.js';
import type { ApiClient } from './types.js';
import { TransportError } from './types.js';
import { normalizeControllerUrls } from './url.js';

export interface SessionContext {
  profileName: string;
  /** What chose the profile. */
  profileSource: 'flag' | 'env' | 'current' | 'default';
  /** The controller commands start with. */
  controller?: string;
  /** Every controller of the network, `controller` first: the others take over when it does not answer. */
  controllers?: string[];
  caPem?: string;
  username?: string;
  /** CTL_CA / CTL_CA_FINGERPRINT: how to trust the controller without a saved profile (resolved on connect). */
  envTrust?: { caFile?: string; caFingerprint?: string };
  /** Where the credentials come from; undefined when there are none (not logged in). */
  credentials?: 'env-token' | 'env-password' | 'profile';
  /** The options a suggested command needs to act on this profile too. */
  selection: Selection;
}

export interface TrustFlags {
  yes?: boolean;
  caFile?: string;
  caFingerprint?: string;
}

export interface LoginRequest {
  /** As typed; defaults to CTL_CONTROLLER, then the profile's controller. */
  url?: string;
  username: string;
  /** The password, or a function that asks for it once the controller is trusted. */
  password: string | (() => Promise<string>);
  profileName: string;
  trust: TrustFlags;
  /** MFA code given up front (`--totp`); otherwise asked for when the controller wants one. */
  totp?: string;
}

/** A login with a client certificate (`ctl login --identity FILE`, or `--cert FILE --key FILE`). */
export interface CertificateLoginRequest {
  url?: string;
  profileName: string;
  credential: { cert: string; key: string };
  /** The CA bundle that came with the credential (an identity file's): trusted for the controller, after a check. */
  caPem?: string;
  /** How to trust the controller without caPem (the usual flags). */
  trust: TrustFlags;
  /** Where the credential lives, saved in the profile to say how to log in again. */
  files: { identityFile: string } | { certFile: string; keyFile: string };
  totp?: string;
}

/** A login with a JWT of an external signer (`ctl login --ext-jwt FILE`): sent in `Authorization: Bearer`. */
export interface ExtJwtLoginRequest {
  url?: string;
  profileName: string;
  token: string;
  /**
   * Where the token came from (an absolute path, or `-` for stdin), kept in the profile for the hint to log in again.
   */
  source: string;
  trust: TrustFlags;
  totp?: string;
}

/** How one login method authenticates: what it sends, and what a refusal (401) tells the user. */
interface LoginMethod {
  method: 'password' | 'cert' | 'ext-jwt';
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  clientCert?: { cert: string; key: string };
  refused(url: string, message: string): AuthError;
  /** Who is logging in, for the MFA prompt (otherwise the name the session gives). */
  who?: string;
}

function passwordLogin(username: string, password: string): LoginMethod {
  return {
    method: 'password',
    body: { username, password },
    who: username,
    refused: (url, message) =>
      new AuthError(`login to ${url} as ${username} failed: ${message}`, [
        'check the username and password; the identity may also be disabled or not allowed to use a password',
      ]),
  };
}

export interface LoginResult {
  profile: Profile;
  /** The controller the profile pointed to before, when login changed it. */
  replacedController?: string;
  /** Whether the profile is the current one (login selects it when none was). */
  isCurrent: boolean;
  /**
   * The controller requires MFA of the identity, which has not enrolled: the saved session may only enroll
   * (`ctl mfa enable`), which completes it.
   */
  mfaEnrollmentRequired?: boolean;
}

export interface LogoutResult {
  profileName: string;
  controller: string;
  /** What happened on the controller: ended now, already dead, unreachable, or nothing to end. */
  server: 'ended' | 'already-ended' | 'unreachable' | 'not-logged-in';
}

export interface SessionManager {
  /** The resolved profile, controller and credential source, without contacting the controller. */
  current(): Promise<SessionContext>;
  /** An authenticated client (memoised); throws AuthError when there is no session. */
  client(): Promise<ApiClient>;
  /** A client without credentials for the resolved controller (version, well-known), if there is one. */
  anonymousClient(): Promise<ApiClient | undefined>;
  login(req: LoginRequest): Promise<LoginResult>;
  /** Certificate authentication over mutual TLS; the profile then holds the session token as after a password login. */
  loginWithCertificate(req: CertificateLoginRequest): Promise<LoginResult & { identityName?: string }>;
  /** External JWT authentication; the profile then holds the session token (log in again when it ends). */
  loginWithExtJwt(req: ExtJwtLoginRequest): Promise<LoginResult & { identityName?: string }>;
  logout(opts?: { profileName?: string }): Promise<LogoutResult>;
  /**
   * Ends the API session a CTL_USERNAME/CTL_PASSWORD login opened for this command: it is saved nowhere, so nothing
   * could use it again, and left open it would linger on the controller until it expires. Never throws.
   */
  endOneOffSession(): Promise<void>;
  /** The profile store, for `ctl profile ...`. */
  profiles(): Promise<ProfileStore>;
}

export interface SessionManagerOptions {
  env: NodeJS.ProcessEnv;
  /** Overrides the config directory (tests); otherwise CTL_CONFIG_DIR and friends decide. */
  configDir?: string;
  /** The global --profile flag. */
  profileFlag?: string;
  io: IO;
  prompter?: () => Promise<Prompter>;
  /** --timeout, and --verbose's request log: every request this manager makes goes with them. */
  net?: NetOptions;
}

interface CurrentApiSession {
  token?: string;
  expiresAt?: string;
  isMfaRequired?: boolean;
  isMfaComplete?: boolean;
  authQueries?: { typeId?: string; isTotpEnrolled?: boolean }[];
  identity?: { name?: string };
}

/**
 * MFA is required of the session and the identity has no TOTP enrollment yet (an auth policy requires it): no code
 * can be given, but the session may enroll, and verifying the enrollment completes it.
 */
function mustEnroll(session: CurrentApiSession): boolean {
  return (
    session.isMfaRequired === true &&
    session.isMfaComplete !== true &&
    (session.authQueries ?? []).some((q) => q.typeId === 'MFA' && q.isTotpEnrolled === false)
  );
}

/** The session is partial: the controller still asks for MFA (`authQueries`), and allows little else until then. */
function mfaPending(session: CurrentApiSession): boolean {
  return (session.authQueries ?? []).length > 0 || (session.isMfaRequired === true && session.isMfaComplete !== true);
}

function pendingMfa(session: CurrentApiSession, who: string | undefined, selection: Selection): AuthError {
  const identity = who ? `identity '${who}'` : 'this identity';
  if (mustEnroll(session)) {
    const enable = suggestCommand('ctl mfa enable', selection);
    const scripted = suggestCommand('ctl mfa enable --secret-out FILE', selection);
    return new AuthError(`MFA is pending: ${identity} must set up MFA first (its auth policy requires TOTP)`, [
      `run \`${enable}\` (or \`${scripted}\` in a script)`,
    ]);
  }
  return new AuthError(`MFA is pending: the session of ${identity} has not given its MFA code`, [
    `log in again and give the code: \`${suggestCommand('ctl login', selection)}\` asks for it (or pass --totp CODE)`,
  ]);
}

const ONE_OFF_END_TIMEOUT_MS = 5_000;

export function createSessionManager(opts: SessionManagerOptions): SessionManager {
  const { env, io } = opts;
  const net: NetOptions = opts.net ?? {};
  let storePromise: Promise<ProfileStore> | undefined;
  let clientPromise: Promise<ApiClient> | undefined;
  let oneOff: { baseUrl: string; caPem?: string; token: string } | undefined;
  const store = () => (storePromise ??= openProfileStore({ env, dir: opts.configDir }));
  /** The TLS sessions kept for each controller under the CA that verifies it, beside the profiles. */
  const tlsSessions = async (caPem: string | undefined) => {
    const { dir } = await store();
    return (url: string) => tlsSessionStore(dir, new URL(url).origin, caPem);
  };

  async function prompter(): Promise<Prompter> {
    if (!opts.prompter) throw new UsageError('cannot prompt here');
    return opts.prompter();
  }

  function loginCommand(
    ctx: Pick<SessionContext, 'controllers' | 'username' | 'selection'>,
    profile?: Profile,
  ): string {
    const q = shellQuote;
    // Every controller: a login naming fewer would leave them out of the profile.
    const url = ctx.controllers ? q(ctx.controllers.join(',')) : '<url>';
    const parts = profile?.identityFile
      ? ['ctl login', '--identity', q(profile.identityFile)]
      : profile?.certFile
        ? ['ctl login', url, '--cert', q(profile.certFile), '--key', profile.keyFile ? q(profile.keyFile) : '<key>']
        : profile?.extJwtFile
          ? ['ctl login', url, '--ext-jwt', profile.extJwtFile === '-' ? '<new token file>' : q(profile.extJwtFile)]
          : ['ctl login', url, '-u', ctx.username ? q(ctx.username) : '<user>'];
    return `\`${suggestCommand(parts.join(' '), ctx.selection)}\``;
  }

  async function current(): Promise<SessionContext> {
    const s = await store();
    const flag = opts.profileFlag;
    const stored = s.current();
    const profileName = validateProfileName(flag ?? env.CTL_PROFILE ?? stored ?? 'default');
    const profileSource = flag ? 'flag' : env.CTL_PROFILE ? 'env' : stored ? 'current' : 'default';
    const profile = s.get(profileName);
    // An explicit --profile means exactly that profile: environment overrides apply only without it.
    const e: NodeJS.ProcessEnv = flag ? {} : env;
    const envControllers = e.CTL_CONTROLLER ? normalizeControllerUrls(e.CTL_CONTROLLER) : undefined;
    const controllers = envControllers ?? (profile ? profileControllers(profile) : undefined);
    const controller = controllers?.[0];
    const saved = (p: Profile) => controller !== undefined && profileControllers(p).includes(controller);
    const sameController = profile !== undefined && saved(profile);
    // A CA is trusted per controller: reuse whichever profile trusted this one.
    const caPem = sameController ? profile.caPem : s.list().find((p) => saved(p) && p.caPem)?.caPem;
    const ctx: SessionContext = {
      profileName,
      profileSource,
      controller,
      controllers,
      caPem,
      username: e.CTL_USERNAME || (sameController ? profile.username : undefined),
      selection: profileSelection(profileName, stored),
    };
    if (e.CTL_CA || e.CTL_CA_FINGERPRINT)
      ctx.envTrust = { caFile: e.CTL_CA || undefined, caFingerprint: e.CTL_CA_FINGERPRINT || undefined };
    if (e.CTL_TOKEN) ctx.credentials = 'env-token';
    else if (e.CTL_USERNAME && e.CTL_PASSWORD) ctx.credentials = 'env-password';
    else if (sameController && s.session(profileName)) ctx.credentials = 'profile';
    return ctx;
  }

  /** Password login (and MFA when the controller asks for it); returns the new token and session. */
  /**
   * Opens an API session with one login method, completing MFA when the controller asks for it (a person logging in
   * keeps a session that must enroll, to run `ctl mfa enable` with; a script gets the error).
   */
  async function authenticate(
    urls: readonly string[],
    caPem: string | undefined,
    how: LoginMethod,
    mfa: { totp?: string; interactive: boolean },
  ): Promise<{ token: string; session: CurrentApiSession; url: string }> {
    let issued: string | undefined;
    // A resumed TLS session carries the client certificate of its first handshake: certificate logins make their own.
    const resume = how.clientCert ? {} : { tlsSessions: await tlsSessions(caPem) };
    const onSessionToken = (t: string) => (issued = t);
    const [first, ...fallbackUrls] = urls;
    const anon = createApiClient({
      baseUrl: first,
      fallbackUrls,
      caPem,
      clientCert: how.clientCert,
      ...resume,
      ...net,
      onSessionToken,
    });
    let session: CurrentApiSession;
    try {
      session = await anon.post<CurrentApiSession>(`/authenticate?method=${how.method}`, how.body ?? {}, {
        anonymous: true,
        headers: how.headers,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw how.refused(anon.baseUrl, err.message);
      throw err;
    }
    // The session is the network's: the controller that opened it completes it.
    const url = anon.baseUrl;
    const token = issued ?? session.token;
    if (!token) throw new AuthError(`${url} accepted the login but returned no session token`);
    if (session.isMfaRequired && !session.isMfaComplete && !(mfa.interactive && mustEnroll(session))) {
      await completeMfa(url, caPem, token, { username: how.who ?? session.identity?.name ?? 'this identity', ...mfa });
    }
    return { token, session, url };
  }

  async function completeMfa(
    url: string,
    caPem: string | undefined,
    token: string,
    creds: { username: string; totp?: string; interactive: boolean },
  ): Promise<void> {
    const client = createApiClient({ baseUrl: url, caPem, token, ...net });
    try {
      const ask = () => askMfaCode(creds);
      await sendMfaCode(io, { given: creds.totp, ask }, (code) => client.post('/authenticate/mfa', { code }));
    } catch (err) {
      // Do not leave a half-authenticated session behind, whatever went wrong.
      await client.delete('/current-api-session').catch(() => undefined);
      if (err instanceof ApiError && err.status === 429) {
        // The controller's message says why (ours: how many wrong codes, and for how long).
        throw new AuthError(`the MFA code was not accepted: ${err.message} (${err.code})`, [
          'wait, then log in again with a current code',
        ]);
      }
      if (err instanceof ApiError && err.status < 500) {
        throw new AuthError(`the MFA code was not accepted (${err.code})`, [
          'codes change every 30 seconds and each works once; try the current one, or a recovery code',
        ]);
      }
      throw err;
    }
  }

  async function askMfaCode(creds: { username: string; interactive: boolean }): Promise<string> {
    if (!creds.interactive) {
      throw new AuthError(
        `the controller requires an MFA code for ${creds.username}, ` +
          'which a CTL_USERNAME/CTL_PASSWORD login cannot give',
        ['log in with `ctl login URL -u USER --totp CODE` and use the saved profile'],
      );
    }
    if (!io.canPrompt()) {
      throw new UsageError(`the controller requires an MFA code for ${creds.username}`, [
        'pass it with --totp CODE or --totp-stdin (a recovery code works too)',
      ]);
    }
    return (await (await prompter()).input('MFA code (authenticator app or recovery code):')).trim();
  }

  /** The CA bundle to verify the controller with: CTL_CA or CTL_CA_FINGERPRINT when set, else the profile's. */
  async function trustedCa(ctx: SessionContext, url: string): Promise<string | undefined> {
    if (!ctx.envTrust) return ctx.caPem;
    const decision = await establishTrust({
      url,
      ...ctx.envTrust,
      names: { caFile: 'CTL_CA', caFingerprint: 'CTL_CA_FINGERPRINT' },
      io,
      confirm: async () => false,
      ...net,
    });
    return decision.caPem;
  }

  async function client(): Promise<ApiClient> {
    return (clientPromise ??= connect());
  }

  async function connect(): Promise<ApiClient> {
    const ctx = await current();
    if (!ctx.controller) {
      if (ctx.profileSource === 'flag' || ctx.profileSource === 'env') {
        throw unknownProfile(
          ctx.profileName,
          (await store()).list().map((p) => p.name),
        );
      }
      throw new AuthError('not logged in: run `ctl login <url> -u <user>`');
    }
    const baseUrl = ctx.controller;
    const controllers = ctx.controllers ?? [baseUrl];
    const caPem = await trustedCa(ctx, baseUrl);
    let token: string;
    let rejected: () => AuthError;
    if (ctx.credentials === 'env-token') {
      token = env.CTL_TOKEN ?? '';
      rejected = () => new AuthError(`the session token in CTL_TOKEN was rejected by ${baseUrl} (expired or revoked)`);
    } else if (ctx.credentials === 'env-password') {
      const username = env.CTL_USERNAME ?? '';
      const login = passwordLogin(username, env.CTL_PASSWORD ?? '');
      const opened = await authenticate(controllers, caPem, login, { interactive: false });
      token = opened.token;
      oneOff = { baseUrl: opened.url, caPem, token };
      rejected = () => new AuthError(`the session for ${username} (from CTL_USERNAME) was rejected by ${baseUrl}`);
    } else if (ctx.credentials === 'profile') {
      token = (await store()).session(ctx.profileName)?.token ?? '';
      const profile = (await store()).get(ctx.profileName);
      rejected = () =>
        new AuthError(
          `your session for profile '${ctx.profileName}' has expired or ` +
            `was revoked; log in again with ${loginCommand(ctx, profile)}`,
        );
    } else {
      throw new AuthError(`not logged in to ${baseUrl} (profile '${ctx.profileName}'): run ${loginCommand(ctx)}`);
    }
    // Where a saved profile's controller answered instead of the one it names, the next command starts.
    const remember = ctx.credentials === 'profile' && !(ctx.profileSource !== 'flag' && env.CTL_CONTROLLER);
    const api: ApiClient = createApiClient({
      baseUrl,
      fallbackUrls: controllers.slice(1),
      onFailover: remember ? (url) => rememberController(ctx.profileName, url) : undefined,
      caPem,
      token,
      tlsSessions: await tlsSessions(caPem),
      ...net,
      selection: ctx.selection,
      // The controller answers 401 both for a dead session and for an identity not allowed the call (there is
      // no 403); asking for our own session tells the two apart.
      mapError: async (err, req) => {
        if (err.status !== 401) return err;
        const probe = await api
          .request<{ data?: CurrentApiSession }>('GET', '/current-api-session', { throwHttpErrors: false })
          .catch(() => undefined);
        if (probe?.status !== 200) return rejected();
        const who = probe.body.data?.identity?.name;
        if (probe.body.data && mfaPending(probe.body.data)) return pendingMfa(probe.body.data, who, ctx.selection);
        return new AuthError(
          `not authorised: ${baseUrl} refused ${req.method} ${req.path}${who ? ` for identity '${who}'` : ''}`,
          ['the management API requires an admin identity'],
        );
      },
    });
    return api;
  }

  /** The answer came: failing to record who gave it only costs the next command a failed connection first. */
  async function rememberController(profileName: string, url: string): Promise<void> {
    try {
      await (await store()).setController(profileName, url);
    } catch (err) {
      io.warn(`could not record in profile '${profileName}' that ${url} answered: ${(err as Error).message}`);
    }
  }

  async function endOneOffSession(): Promise<void> {
    if (!oneOff) return;
    const { baseUrl, caPem, token } = oneOff;
    oneOff = undefined;
    // A controller that did not answer the command will not answer this either: do not make the user wait long.
    const timeoutMs = Math.min(net.timeoutMs ?? ONE_OFF_END_TIMEOUT_MS, ONE_OFF_END_TIMEOUT_MS);
    await createApiClient({ baseUrl, caPem, token, ...net, timeoutMs })
      .delete('/current-api-session')
      .catch(() => undefined);
  }

  async function anonymousClient(): Promise<ApiClient | undefined> {
    const ctx = await current();
    if (!ctx.controller) return undefined;
    const caPem = await trustedCa(ctx, ctx.controller);
    return createApiClient({ baseUrl: ctx.controller, fallbackUrls: ctx.controllers?.slice(1), caPem, ...net });
  }

  /**
   * A login of any method: the controller (typed, CTL_CONTROLLER or the profile's), trusted by the flags or the
   * credential's own bundle; then the session, saved in the profile with what says how to log in again.
   */
  async function loginWith(
    req: { url?: string; profileName: string; trust: TrustFlags; caPem?: string; totp?: string },
    example: string,
    how: () => Promise<LoginMethod>,
    saved: (identityName: string | undefined) => Partial<Profile>,
  ): Promise<LoginResult & { identityName?: string }> {
    const s = await store();
    const name = validateProfileName(req.profileName);
    const existing = s.get(name);
    const typed = req.url ?? env.CTL_CONTROLLER;
    const urls = typed ? normalizeControllerUrls(typed) : existing ? profileControllers(existing) : undefined;
    if (!urls) throw new UsageError('missing controller URL', [`example: ${example}`]);
    const decide = async (url: string): Promise<TrustDecision> => {
      if (req.caPem) {
        const { verifyChosen } = await import('./trust.js');
        return verifyChosen(url, req.caPem, 'the CA bundle of the identity file', net);
      }
      const trusting = (p: Profile) => profileControllers(p).includes(url);
      const knownCaPem =
        existing && trusting(existing) ? existing.caPem : s.list().find((p) => trusting(p) && p.caPem)?.caPem;
      const confirm = async (m: string) => (await prompter()).confirm(m, { default: false });
      const selection = profileSelection(name, s.current());
      return establishTrust({ url, knownCaPem, ...req.trust, io, confirm, selection, ...net });
    };
    const trust = await trustNetwork(urls, decide);
    const login = await how();
    const mfa = { totp: req.totp, interactive: true };
    const { token, session, url: answered } = await authenticate(urls, trust.caPem, login, mfa);
    const identityName = session.identity?.name;
    const controllers = urls.length > 1 ? { controllers: urls } : {};
    const profile: Profile = { name, controller: answered, ...controllers, ...saved(identityName), ...trust };
    await s.save(profile);
    await s.setToken(name, { token, expiresAt: session.expiresAt });
    const selected = s.current();
    if (selected === undefined || s.get(selected) === undefined) await s.use(name);
    clientPromise = undefined;
    return {
      profile,
      identityName,
      replacedController: existing && !urls.includes(existing.controller) ? existing.controller : undefined,
      isCurrent: s.current() === name,
      ...(mustEnroll(session) ? { mfaEnrollmentRequired: true } : {}),
    };
  }

  /**
   * Trust decided with the first controller that answers, and extended to the others (extendTrust): a network whose
   * first controller is down can still be logged in to.
   */
  async function trustNetwork(urls: string[], decide: (url: string) => Promise<TrustDecision>): Promise<TrustDecision> {
    const [first, ...others] = urls;
    let trust: TrustDecision;
    try {
      trust = await decide(first);
    } catch (err) {
      const unanswered = err instanceof TransportError && !(err instanceof UntrustedCertificateError);
      if (!unanswered || others.length === 0) throw err;
      io.warn(`${err.message}; deciding trust with ${others[0]}`);
      return trustNetwork(others, decide);
    }
    if (others.length > 0) await extendTrust(urls, trust, io, net);
    return trust;
  }

  const named = (identityName: string | undefined) => (identityName ? { username: identityName } : {});

  function login(req: LoginRequest): Promise<LoginResult> {
    // The password is asked for (when it is a function) once the controller is trusted.
    const how = async () =>
      passwordLogin(req.username, typeof req.password === 'string' ? req.password : await req.password());
    return loginWith(req, 'ctl login ctrl.example.com:1280 -u admin', how, () => ({ username: req.username }));
  }

  function loginWithCertificate(req: CertificateLoginRequest): Promise<LoginResult & { identityName?: string }> {
    const how: LoginMethod = {
      method: 'cert',
      clientCert: req.credential,
      refused: (url, message) =>
        new AuthError(`certificate login to ${url} failed: ${message}`, [
          'the certificate must be one this controller issued at enrollment, and its identity must still have it',
        ]),
    };
    return loginWith(
      req,
      'ctl login ctrl.example.com:1280 --cert me.pem --key me.key',
      async () => how,
      (identityName) => ({ ...named(identityName), ...req.files }),
    );
  }

  function loginWithExtJwt(req: ExtJwtLoginRequest): Promise<LoginResult & { identityName?: string }> {
    const how: LoginMethod = {
      method: 'ext-jwt',
      headers: { authorization: `Bearer ${req.token}` },
      refused: (url, message) =>
        new AuthError(`external JWT login to ${url} failed: ${message}`, [
          'the token must come from an enabled signer, be current, and name an identity whose auth policy allows it',
          '`ctl signer test SIGNER TOKEN_FILE` says which check the token fails',
        ]),
    };
    return loginWith(
      req,
      'ctl login ctrl.example.com:1280 --ext-jwt token.jwt',
      async () => how,
      (identityName) => ({ ...named(identityName), extJwtFile: req.source }),
    );
  }

  async function logout(o: { profileName?: string } = {}): Promise<LogoutResult> {
    const s = await store();
    const name = o.profileName ?? (await current()).profileName;
    const profile = s.getExisting(name);
    const session = s.session(name);
    const result: LogoutResult = { profileName: name, controller: profile.controller, server: 'not-logged-in' };
    if (!session) return result;
    const [first, ...fallbackUrls] = profileControllers(profile);
    const api = createApiClient({ baseUrl: first, fallbackUrls, caPem: profile.caPem, token: session.token, ...net });
    try {
      await api.delete('/current-api-session');
      result.server = 'ended';
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) result.server = 'already-ended';
      else if (err instanceof TransportError || err instanceof ApiError) {
        // Forgetting the token is still what the user asked for; the controller expires it after inactivity.
        io.warn(
          `could not end the session on ${profile.controller}: ${err.message}; it expires there after inactivity`,
        );
        result.server = 'unreachable';
      } else throw err;
    }
    await s.clearToken(name);
    clientPromise = undefined;
    return result;
  }

  return {
    current,
    client,
    anonymousClient,
    login,
    loginWithCertificate,
    loginWithExtJwt,
    logout,
    endOneOffSession,
    profiles: store,
  };
}
