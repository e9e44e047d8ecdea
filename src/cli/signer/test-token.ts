// `ctl signer test NAME TOKEN_FILE|-`: checks a token the way the controller would (the same code:
// src/protocol/ext-jwt.ts), step by step, and says which step fails; then finds the identity it names and whether
// that identity's auth policy lets it log in with this signer, through the management API.
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { CliError, EXIT } from '../../console/errors.js';
import { ExtJwtError, signerRefusal, validateExtJwt } from '../../protocol/ext-jwt.js';
import type { ExtJwtPolicy, ExtJwtSignerKeys } from '../../protocol/ext-jwt.js';
import { boundedFetch, JwksCache } from '../../protocol/jwks.js';
import { externalJwtSigner } from '../../resources/external-jwt-signer.js';
import { identity as identityDef } from '../../resources/identity.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, fetchEntity, isNotFound } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { readToken } from '../generic/token-file.js';

export interface SignerTestOptions {
  ref: string;
  tokenFile: string;
  /** The time to check exp and nbf against (tests); default now. */
  now?: Date;
}

/** The steps, in the order they run, as the report names them. */
const STEP_TITLES: Record<ExtJwtError['step'], string> = {
  format: 'format',
  algorithm: 'algorithm',
  kid: 'kid',
  keys: 'keys',
  signature: 'signature',
  issuer: 'issuer',
  audience: 'audience',
  expiry: 'expiry',
  'not-yet-valid': 'not before',
  claim: 'claim',
};
const ORDER = Object.keys(STEP_TITLES) as ExtJwtError['step'][];

/** A token that fails a step: exit 6 (rejected), the failed step named in the message. */
class TokenRejected extends CliError {
  constructor(step: string, reason: string) {
    super(`the token fails the ${step} check: ${reason}`, EXIT.rejected);
  }
}

export function buildSignerTest(deps: Deps, run = runSignerTest): CommandUnknownOpts {
  const command = withMeta(
    new Command('test')
      .addArgument(nameArgument(externalJwtSigner, 'the signer the token should come from'))
      .argument('<token-file>', 'file holding the JWT, or - to read it from stdin'),
    {
      description:
        'Check a JWT the way the controller does for this signer (algorithm, kid, signature, issuer, audience, ' +
        'expiry, claim), then find the identity it names and whether its ' +
        'auth policy allows the signer; says which step fails (exit 6)',
      examples: ['ctl signer test corp-idp token.jwt', 'get-token | ctl signer test keycloak -'],
    },
  );
  return command.action(async (ref, tokenFile) => run({ ref, tokenFile }, deps));
}

export async function runSignerTest(opts: SignerTestOptions, deps: Deps): Promise<void> {
  const token = await readToken(opts.tokenFile, deps, 'token file');
  const api = await deps.api();
  const signer = (await fetchEntity(api, externalJwtSigner, opts.ref)) as ExtJwtSignerKeys &
    Record<string, unknown> & { id: string };
  const report = (line: string) => deps.io.info(line);
  if (signer.enabled !== true)
    throw new TokenRejected('signer', `the signer "${opts.ref}" is disabled: the controller refuses its tokens`);
  // The read model serves "" where a signer has no certificate: that is no certificate.
  const keys: ExtJwtSignerKeys = {
    ...signer,
    certPem: signer.certPem || null,
    jwksEndpoint: signer.jwksEndpoint || null,
  };
  let subject: string;
  try {
    ({ subject } = await validateExtJwt(token, keys, {
      jwks: new JwksCache({ fetch: boundedFetch() }),
      now: opts.now ?? new Date(),
    }));
  } catch (err) {
    if (!(err instanceof ExtJwtError)) throw err;
    for (const step of ORDER.slice(0, ORDER.indexOf(err.step)))
      if (step !== 'keys') report(`ok    ${STEP_TITLES[step]}`);
    throw new TokenRejected(STEP_TITLES[err.step], err.message);
  }
  for (const step of ORDER) if (step !== 'keys') report(`ok    ${STEP_TITLES[step]}`);
  const found = await identityNamed(deps, signer, subject);
  if (!found) {
    const how = signer.useExternalId === true ? `externalId "${subject}"` : `id "${subject}"`;
    throw new TokenRejected('identity', `no identity has the ${how} (claim ${signer.claimsProperty || 'sub'})`);
  }
  report(`ok    identity (${found.name as string})`);
  if (found.disabled === true)
    throw new TokenRejected('identity', `the identity "${found.name as string}" is disabled`);
  const policyId = (found.authPolicyId as string | undefined) ?? 'default';
  const policy = await api.get<ExtJwtPolicy>(`/auth-policies/${encodeURIComponent(policyId)}`);
  const refusal = signerRefusal(policy, signer.id);
  if (refusal) {
    throw new TokenRejected('auth policy', `the auth policy "${policyId}" of "${found.name as string}" ${refusal}`);
  }
  report('ok    auth policy');
  deps.io.out(
    `the token is valid for signer "${opts.ref}": it logs in ` +
      `identity "${found.name as string}" (${found.id as string})`,
  );
}

/** The identity the claim names, by id or by externalId, through the management API; none: undefined. */
async function identityNamed(
  deps: Deps,
  signer: Record<string, unknown>,
  subject: string,
): Promise<Record<string, unknown> | undefined> {
  const api = await deps.api();
  if (signer.useExternalId === true) {
    const page = await api.list<Record<string, unknown>>(entityPath(identityDef), {
      filter: `externalId = ${JSON.stringify(subject)}`,
      limit: 1,
    });
    return page.data[0];
  }
  try {
    return await api.get<Record<string, unknown>>(entityPath(identityDef, subject));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
