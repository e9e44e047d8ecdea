// The auth-policy noun's own create and update, with readable flags instead of the nested JSON of `primary` and
// `secondary` (src/cli/auth-policy/flags.ts); list, show and delete are the generic verbs. Registered in
// src/cli/tree.ts with nounCommands.
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { authPolicy } from '../../resources/auth-policy.js';
import type { Deps } from '../deps.js';
import { announceCreated, createEntity } from '../generic/create.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { addFieldFlags, collectFields, type FieldInput, type TagValue } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, fetchEntity, resolveId } from '../generic/resolve.js';
import { mergeTags } from '../generic/update.js';
import { nameAfter, nameArgument } from '../generic/words.js';
import type { NounModule } from '../nouns/verbs.js';
import { addPolicyFlags, NEW_POLICY, policyBody, type PolicyFlags } from './flags.js';

/** The nested fields have flags of their own; name (argument or --name) and tags stay generic. */
const NESTED = ['primary', 'secondary'];

export interface AuthPolicyCreateOptions {
  name: string;
  input: FieldInput;
  flags: PolicyFlags;
}

export function buildAuthPolicyCreate(deps: Deps, run = runAuthPolicyCreate): CommandUnknownOpts {
  const command = withMeta(new Command('create').argument('<name>', 'name of the new auth policy'), {
    description:
      'Create an auth policy: which primary methods identities under it ' +
      'may use, password rules, lockout, second factors; prints its id',
    examples: [
      'ctl auth-policy create strict --primary password,cert --min-password-length 12 ' +
        '--require-special-char --require-number --require-mixed-case --max-attempts 5 --lockout 15m',
      'ctl auth-policy create sso-only --primary ext-jwt --signers corp-idp,keycloak',
      'ctl auth-policy create admins --primary password --require-totp --require-ext-jwt corp-idp',
    ],
  });
  const fields = addFieldFlags(command, authPolicy, 'create', ['name', ...NESTED]);
  const read = addPolicyFlags(command);
  addDryRun(command);
  return command.action(async (name, _o, cmd) =>
    dryRunnable(cmd, deps, (d) => run({ name, input: collectFields(cmd, fields), flags: read(cmd) }, d)),
  );
}

export async function runAuthPolicyCreate(opts: AuthPolicyCreateOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const body = await policyBody(api, opts.flags, NEW_POLICY);
  const id = await createEntity(api, authPolicy, { name: opts.name, ...body }, opts.input);
  await announceCreated(deps, authPolicy, opts.name, id);
}

export interface AuthPolicyUpdateOptions {
  ref: string;
  input: FieldInput;
  flags: PolicyFlags;
}

export function buildAuthPolicyUpdate(deps: Deps, run = runAuthPolicyUpdate): CommandUnknownOpts {
  const command = withMeta(new Command('update').addArgument(nameArgument(authPolicy, 'the auth policy to change')), {
    description: 'Change an auth policy: only what the flags say changes (the default policy too)',
    examples: [
      'ctl auth-policy update default --max-attempts 5 --lockout 30m',
      'ctl auth-policy update strict --primary password,cert,ext-jwt --signers corp-idp',
      'ctl auth-policy update admins --no-require-totp --require-ext-jwt none',
      'ctl auth-policy update strict --name stricter --min-password-length 16',
    ],
  });
  const fields = addFieldFlags(command, authPolicy, 'patch', NESTED);
  const read = addPolicyFlags(command);
  addDryRun(command);
  return command.action(async (ref, _o, cmd) => {
    const opts = { ref, input: collectFields(cmd, fields), flags: read(cmd) };
    if (
      Object.keys(opts.input.body).length === 0 &&
      Object.keys(opts.flags).length === 0 &&
      opts.input.tagEdit === undefined
    ) {
      throw new UsageError('nothing to update', [
        'give --name, --tags, or policy flags such as --primary, --max-attempts, --require-totp (see --help)',
      ]);
    }
    await dryRunnable(cmd, deps, (d) => run(opts, d));
  });
}

/** A PATCH of the members the flags touch: the controller keeps the rest (patch variants of primary and secondary). */
export async function runAuthPolicyUpdate(opts: AuthPolicyUpdateOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, authPolicy, opts.ref);
  const { primary, secondary } = await policyBody(api, opts.flags, { primary: {}, secondary: {} });
  const body: Record<string, unknown> = { ...opts.input.body };
  if (opts.input.tagEdit)
    body.tags = mergeTags(
      ((await fetchEntity(api, authPolicy, id)).tags ?? {}) as Record<string, TagValue>,
      opts.input.tagEdit,
    );
  if (Object.keys(primary).length > 0) body.primary = primary;
  if (Object.keys(secondary).length > 0) body.secondary = secondary;
  await api.patch(entityPath(authPolicy, id), body, { api: authPolicy.api });
  deps.io.info(`updated auth policy "${nameAfter(opts.ref, body)}"`);
}

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildAuthPolicyCreate(deps),
  update: (deps) => buildAuthPolicyUpdate(deps),
};
