// Authentication with a JWT of an external signer: primary (`POST /authenticate?method=ext-jwt`, the token in
// `Authorization: Bearer`), and secondary (an auth policy's `secondary.requireExtJwtSigner`: every request of the
// identity's sessions carries a valid token of that signer in `Authorization: Bearer`, beside `zt-session`). The
// checks of the token itself are src/protocol/ext-jwt.ts, shared with `ctl signer test`.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../../protocol/errors.js';
import { allowsSigner, ExtJwtError, peekJwt, validateExtJwt } from '../../../protocol/ext-jwt.js';
import type { ExtJwtSignerKeys, ValidatedExtJwt } from '../../../protocol/ext-jwt.js';
import { boundedFetch, JwksCache, type JwksOptions } from '../../../protocol/jwks.js';
import type { Runtime } from '../../runtime.js';
import { bearerOf } from '../../server/auth-stage.js';
import { addressKey } from '../../server/listener.js';
import { LOGIN_EXTRAS_SCHEMA } from '../../server/limits.js';
import type { Ctx, Principal, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { keptUntilWritten } from '../../store/kept-until-written.js';
import { policyOfIdentity, type LoginSubject } from './auth-policy-rules.js';
import { isDisabled } from '../../auth/identity-state.js';

const EXTRAS_BODY = { type: 'object', properties: { ...LOGIN_EXTRAS_SCHEMA }, additionalProperties: false };

/** What the secondary check needs of a session: whose it is, and its token (not to be mistaken for a JWT). */
export type SessionOwner = Pick<Principal, 'identityId' | 'token'>;

/** One key-set cache per controller (the runtime is the controller's). */
const caches = new WeakMap<Runtime, JwksCache>();

/** Key sets are fetched over undici, loaded on the first fetch. */
const fetchKeySet = boundedFetch();

function jwksCacheOf(rt: Runtime): JwksCache {
  return caches.get(rt) ?? configureJwks(rt, {});
}

/**
 * Replaces a controller's key-set cache with one of other limits (tests: a short interval, a clock of their own).
 * A write of a signer, by this controller or (heard as a request catches up) another sharing its database, drops
 * the key sets kept: keys rotated together with a change of the signer are fetched at the next login, not after
 * the refetch interval.
 */
export function configureJwks(rt: Runtime, options: Partial<JwksOptions>): JwksCache {
  const cache = new JwksCache({ fetch: fetchKeySet, ...options });
  if (!caches.has(rt)) {
    rt.store.onWrite((event) => {
      if (event.resource === 'external-jwt-signer' || event.resource === '*') caches.get(rt)?.clear();
    });
  }
  caches.set(rt, cache);
  return cache;
}

/**
 * The identity a token of `signer` names: by id, or by externalId when the signer says so. Unknown, disabled: none.
 */
async function identityNamed(rt: Runtime, signer: Row, subject: string, now: Date): Promise<Row | undefined> {
  const identities = rt.store.repo('identity');
  const identity =
    signer.useExternalId === true ? await identities.findOne({ externalId: subject }) : await identities.find(subject);
  if (!identity || isDisabled(identity, now)) return undefined;
  return identity;
}

/** What validation reads of a stored signer row. */
function keysOf(signer: Row): ExtJwtSignerKeys {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    name: signer.name as string,
    issuer: signer.issuer as string,
    audience: text(signer.audience),
    certPem: text(signer.certPem),
    kid: text(signer.kid),
    jwksEndpoint: text(signer.jwksEndpoint),
    claimsProperty: text(signer.claimsProperty),
  };
}

/** A token checked against a stored signer: its keys (key sets cached per controller), issuer, audience, times. */
export function validateSignerToken(rt: Runtime, token: string, signer: Row, now: Date): Promise<ValidatedExtJwt> {
  return validateExtJwt(token, keysOf(signer), { jwks: jwksCacheOf(rt), now });
}

/** Why a token was refused: logged for the operator (never sent: the client gets the same 401 as for a password). */
function refuse(rt: Runtime, why: string): never {
  rt.log(`ext-jwt authentication refused: ${why}`);
  throw new ApiError('INVALID_AUTH');
}

/**
 * `POST /authenticate?method=ext-jwt`. The signer is the enabled one whose issuer is the token's `iss`; every check
 * of the token, then the identity it names, then that identity's auth policy (extJwt allowed, this signer among
 * `allowedSigners` when it lists any). Every failure is the same 401 INVALID_AUTH, and counts on the login throttle
 * (per address, and per issuer and subject as the "username").
 */
export async function extJwtLogin(
  rt: Runtime,
  ctx: Ctx,
): Promise<{ subject: LoginSubject; authenticatorId: string; body: Record<string, unknown> }> {
  const text = await ctx.text();
  const body = rt.validators.custom(EXTRAS_BODY, text.trim() === '' ? {} : await ctx.json());
  const token = bearerOf(ctx.req);
  if (!token)
    throw new ApiError('INVALID_AUTH', {
      message: 'The authentication request failed: method ext-jwt needs the token in Authorization: Bearer',
    });
  const client = addressKey(ctx.remoteAddress);
  let throttleKey = 'ext-jwt';
  try {
    const { claims } = peekJwt(token);
    throttleKey = `ext-jwt:${String(claims.iss).slice(0, 200)}:${String(claims.sub).slice(0, 200)}`;
    await rt.loginThrottle.check(client, throttleKey);
    const signer =
      typeof claims.iss === 'string'
        ? await rt.store.repo('external-jwt-signer').findOne({ issuer: claims.iss })
        : undefined;
    if (!signer) refuse(rt, `no signer has the issuer ${JSON.stringify(claims.iss ?? null)}`);
    if (signer.enabled !== true) refuse(rt, `the signer ${signer.name} is disabled`);
    const { subject } = await validateSignerToken(rt, token, signer, ctx.now);
    const identity = await identityNamed(rt, signer, subject, ctx.now);
    if (!identity) refuse(rt, `the signer ${signer.name}'s token names no enabled identity (${subject})`);
    const policy = await policyOfIdentity(rt, identity);
    if (!allowsSigner(policy, signer.id))
      refuse(rt, `the auth policy of ${identity.name} does not allow ext-jwt with the signer ${signer.name}`);
    await rt.loginThrottle.succeeded(identity.id);
    return { subject: { identity, policy }, authenticatorId: signer.id, body };
  } catch (caught) {
    let err = caught;
    if (err instanceof ExtJwtError) {
      rt.log(`ext-jwt authentication refused: ${err.step}: ${err.message}`);
      err = new ApiError('INVALID_AUTH');
    }
    // Not counted against the identity: its consecutive failures are the passwords maxAttempts locks out after.
    if (err instanceof ApiError && err.code === 'INVALID_AUTH') await rt.loginThrottle.failed(client, throttleKey);
    throw err;
  }
}

/**
 * The secondary factor of `secondary.requireExtJwtSigner`: a request of a session whose identity's policy names a
 * signer must carry, in `Authorization: Bearer`, a valid token of that (enabled) signer naming the same identity;
 * without it, 401 UNAUTHORIZED. The routes a session that has yet to pass MFA may call (`partialSession`: its session
 * itself, to learn what it owes or end it, and the MFA steps) stay open, as OpenZiti lets a partly authenticated
 * session do: one declaration on the route decides both.
 */
export async function requireSecondaryExtJwt(
  rt: Runtime,
  req: IncomingMessage,
  principal: SessionOwner | undefined,
  route: Pick<Route, 'partialSession'>,
  now: Date,
): Promise<void> {
  if (!principal || route.partialSession === true) return;
  const owed = await owedSigner(rt, principal.identityId);
  if (owed) await checkSecondary(rt, req, principal, owed, now);
}

/** Refuses (401) a request that does not carry a valid token of the owed signer naming the session's identity. */
async function checkSecondary(
  rt: Runtime,
  req: IncomingMessage,
  principal: SessionOwner,
  owed: Owed,
  now: Date,
): Promise<void> {
  const { signer, identity } = owed;
  const token = bearerOf(req);
  const refused = (why: string) => {
    rt.log(`secondary ext-jwt refused for ${identity.name}: ${why}`);
    return new ApiError('UNAUTHORIZED', {
      message: `this session needs a valid token of the signer '${signer.name}' in Authorization: Bearer`,
    });
  };
  if (!token || token === principal.token) throw refused('no token');
  if (signer.enabled !== true) throw refused(`the signer ${signer.name} is disabled`);
  try {
    const { subject } = await validateSignerToken(rt, token, signer, now);
    const named = signer.useExternalId === true ? identity.externalId : identity.id;
    if (subject !== named) throw refused(`the token names ${subject}, not this identity`);
  } catch (err) {
    if (err instanceof ExtJwtError) throw refused(`${err.step}: ${err.message}`);
    throw err;
  }
}

/**
 * Whether any auth policy requires a secondary token: most controllers have none, and then a
 * request reads nothing for this.
 */
const anyRequired = new WeakMap<Runtime, () => Promise<boolean>>();

function anyPolicyRequiresExtJwt(rt: Runtime): Promise<boolean> {
  let known = anyRequired.get(rt);
  if (!known) {
    known = keptUntilWritten(rt.store, ['auth-policy'], () => readAnyRequired(rt));
    anyRequired.set(rt, known);
  }
  return known();
}

async function readAnyRequired(rt: Runtime): Promise<boolean> {
  const rows = await rt.store.repo('auth-policy').findAll({}, { columns: ['secondary'] });
  return rows.some((row) =>
    Boolean((row.secondary as { requireExtJwtSigner?: string | null } | null)?.requireExtJwtSigner),
  );
}

/** The signer an identity's policy requires as a secondary factor, with the identity; none: undefined. */
interface Owed {
  signer: Row;
  identity: Row;
}

/** `known`: the identity and its policy as a login just read them (nothing is read again). */
async function owedSigner(rt: Runtime, identityId: string, known?: LoginSubject): Promise<Owed | undefined> {
  if (!(await anyPolicyRequiresExtJwt(rt))) return undefined;
  const identity = known?.identity ?? (await rt.store.repo('identity').find(identityId));
  if (!identity) return undefined;
  const policy = known ? known.policy : await policyOfIdentity(rt, identity);
  const signerId = policy?.secondary?.requireExtJwtSigner;
  if (!signerId) return undefined;
  const signer = await rt.store.repo('external-jwt-signer').find(signerId);
  // The policy's reference is checked on write and a referenced signer cannot be deleted: a missing one is a
  // store repaired by hand; refusing is the safe answer.
  if (!signer) throw new ApiError('UNAUTHORIZED', { message: 'the auth policy requires a signer that does not exist' });
  return { signer, identity };
}

/**
 * The authQuery a session shows while it owes the secondary token (OpenZiti's authQueryDetail of type EXT-JWT):
 * where to get one (the signer's externalAuthUrl, clientId, scopes). Empty when nothing is owed, or the current
 * request carries a valid token.
 */
async function extJwtAuthQueries(
  rt: Runtime,
  req: IncomingMessage,
  principal: SessionOwner,
  now: Date,
  known?: LoginSubject,
): Promise<Record<string, unknown>[]> {
  const owed = await owedSigner(rt, principal.identityId, known);
  if (!owed) return [];
  try {
    await checkSecondary(rt, req, principal, owed, now);
    return [];
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const { signer } = owed;
    return [
      {
        typeId: 'EXT-JWT',
        provider: 'url',
        id: signer.id,
        httpUrl: (signer.externalAuthUrl as string | null) ?? '',
        clientId: (signer.clientId as string | null) ?? '',
        scopes: (signer.scopes as string[] | null) ?? [],
      },
    ];
  }
}

/** A session read model with the EXT-JWT authQuery added while the session owes the secondary token. */
export async function withExtJwtQueries(
  rt: Runtime,
  ctx: Ctx,
  session: Record<string, unknown>,
  principal: SessionOwner | undefined = ctx.principal,
  known?: LoginSubject,
): Promise<Record<string, unknown>> {
  if (!principal) return session;
  const queries = await extJwtAuthQueries(rt, ctx.req, principal, ctx.now, known);
  return queries.length === 0
    ? session
    : { ...session, authQueries: [...((session.authQueries as unknown[]) ?? []), ...queries] };
}
