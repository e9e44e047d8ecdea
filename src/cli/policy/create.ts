import { Argument, Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { announceCreated } from '../generic/create.js';
import { withMeta } from '../generic/meta.js';
import { entityPath } from '../generic/resolve.js';
import { addPolicyFlags, checkRoleFlags, type PolicyFlagValues, readPolicyFlags } from './flags.js';
import { KINDS, KIND_NAMES, kindNamed, type PolicyKind, roleTarget } from './kinds.js';
import { dryRunnable } from '../generic/dry-run.js';
import { resolveRoles } from '../generic/resolve.js';

export interface PolicyCreateOptions extends PolicyFlagValues {
  kind: PolicyKind;
  name: string;
}

export function buildPolicyCreate(deps: Deps, run = runPolicyCreate): CommandUnknownOpts {
  const command = withMeta(
    new Command('create')
      .addArgument(new Argument('<kind>', `the kind of policy: ${KIND_NAMES.join(', ')}`).choices(KIND_NAMES))
      .argument('<name>', 'name of the new policy'),
    {
      description: `Create a policy; prints its id. Kinds: ${KINDS.map((k) => `${k.kind} (${k.summary})`).join('; ')}`,
      examples: [
        "ctl policy create dial sales-crm --identities '#sales' --services @crm",
        "ctl policy create bind crm-hosts --identities @crm-server --services @crm --posture-checks '#managed'",
        "ctl policy create router everyone-public --identities '#all' --routers '#public'",
        "ctl policy create service-router all-services --services '#all' --routers '#all'",
      ],
    },
  );
  addPolicyFlags(command, 'AllOf');
  return command.action(async (...args: unknown[]) => {
    const cmd = args[args.length - 1] as CommandUnknownOpts;
    const kind = kindNamed(args[0] as string);
    await dryRunnable(cmd, deps, (d) => run({ kind, name: args[1] as string, ...readPolicyFlags(cmd) }, d));
  });
}

/** The body of a create or update: role flags resolved to the role sets the controller takes. */
export async function policyBody(
  deps: Deps,
  kind: PolicyKind,
  values: PolicyFlagValues,
): Promise<Record<string, unknown>> {
  checkRoleFlags(kind, values);
  const api = await deps.api();
  const body: Record<string, unknown> = {};
  if (values.semantic !== undefined) body.semantic = values.semantic;
  if (values.tags !== undefined) body.tags = values.tags;
  for (const [flag, roles] of Object.entries(values.roles)) {
    const field = kind.roles[flag];
    body[field] = await resolveRoles(api, {
      field,
      resource: roleTarget(kind.def, field).name,
      values: roles,
      flag: `--${flag}`,
    });
  }
  return body;
}

export async function runPolicyCreate(opts: PolicyCreateOptions, deps: Deps): Promise<void> {
  const { kind } = opts;
  const body = { name: opts.name, ...kind.fixed, ...(await policyBody(deps, kind, opts)) };
  const created = await (await deps.api()).post<{ id: string }>(entityPath(kind.def), body, { api: kind.def.api });
  await announceCreated(deps, kind.def, opts.name, created.id);
}
