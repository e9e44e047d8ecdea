import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { addDeleteFlags, runDelete, validateDelete } from '../generic/delete.js';
import { printDeleted } from '../generic/written.js';
import { addDryRun, dryRunDeps } from '../generic/dry-run.js';
import { withMeta } from '../generic/meta.js';
import { findPolicy, policyArgument } from './find.js';
import { POLICY_RESOURCES } from './kinds.js';

export function buildPolicyDelete(deps: Deps): CommandUnknownOpts {
  const policies = policyArgument('<name-or-id...>', 'the policies to delete');
  const base = withMeta(new Command('delete').alias('rm').addArgument(policies), {
    description: 'Delete policies of any kind, after confirming the exact set (per kind)',
    examples: ['ctl policy delete sales-crm', 'ctl policy rm old-dial old-router --yes'],
  });
  return addDryRun(addDeleteFlags(base)).action(async (refs, o) => {
    const flags = { yes: Boolean(o.yes), ignoreMissing: Boolean(o.ignoreMissing), dryRun: Boolean(o.dryRun) };
    validateDelete({ def: POLICY_RESOURCES[0], refs, ...flags }, deps.io);
    // Each name is found among every kind; then each kind's set is deleted as the generic delete does it.
    const byKind = new Map<ResourceDef, string[]>();
    const api = await deps.api();
    for (const ref of new Set(refs)) {
      try {
        const { def, entity } = await findPolicy(api, ref);
        byKind.set(def, [...(byKind.get(def) ?? []), entity.id]);
      } catch (err) {
        if (!flags.ignoreMissing) throw err;
        deps.io.info(`policy "${ref}" not found, skipped`);
      }
    }
    // The ids gone, of every kind, are printed once (-o json|yaml), also when a later kind fails.
    const gone: string[] = [];
    try {
      const run = flags.dryRun ? dryRunDeps(deps) : deps;
      for (const [def, ids] of byKind) await runDelete({ def, refs: ids, ...flags, gone }, run);
    } finally {
      if (!flags.dryRun) await printDeleted(deps, gone);
    }
  });
}
