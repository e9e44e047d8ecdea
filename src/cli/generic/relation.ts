import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { resource } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { given } from './flags.js';
import { FILTER_ARGUMENT, addListFlags, listOptions, runList } from './list.js';
import type { ListOptions } from './list.js';
import { withMeta } from './meta.js';
import { entityPath, resolveId } from './resolve.js';
import { nameArgument, noun } from './words.js';

/** A list of the related resource; where it lists from is known once the parent is resolved. */
export interface RelationListOptions extends Omit<ListOptions, 'path'> {
  parent: ResourceDef;
  parentRef: string;
  relation: string;
}

/**
 * A related list such as `ctl identity authenticators laptop-7`: `GET /{parents}/{id}/{relation}`, shown with the
 * related resource's columns. Built from the parent's `relations` in the catalogue.
 */
export function buildRelationList(
  deps: Deps,
  parent: ResourceDef,
  relation: string,
  run = runRelationList,
): CommandUnknownOpts {
  const rel = parent.relations?.[relation];
  if (!rel) throw new Error(`${parent.name} has no relation '${relation}'`);
  const child = resource(rel.resource);
  const types = 'typeQuery' in rel && rel.typeQuery ? policyTypes(rel.through, rel.typeQuery.field) : [];
  const typed = types.map((t) => `--${t}`).join(' or ');
  const command = withMeta(
    new Command(relation)
      .aliases(rel.aliases ?? [])
      .addArgument(nameArgument(parent, `the ${parent.label}`))
      .argument('[filter]', FILTER_ARGUMENT),
    {
      description:
        types.length > 0 ? `${rel.description} (${typed}: through policies of that type only)` : rel.description,
      examples: [
        `ctl ${noun(parent)} ${relation} laptop-7`,
        `ctl ${noun(parent)} ${relation} laptop-7 -o json`,
        ...('typeQuery' in rel && rel.typeQuery ? [`ctl ${noun(parent)} ${relation} laptop-7 --dial`] : []),
      ],
    },
  );
  const listed = addListFlags(command, child);
  // `--dial` / `--bind`: only what policies of that type grant (the relation's typeQuery parameter).
  for (const type of types)
    listed.addOption(
      new Option(`--${type}`, `only through ${type} policies`).conflicts(types.filter((t) => t !== type)),
    );
  return listed.action(async (parentRef, filter, o, cmd) => {
    const chosen = types.find((t) => given(cmd, t));
    const query = chosen && 'typeQuery' in rel && rel.typeQuery ? { [rel.typeQuery.name]: chosen } : undefined;
    await run(
      { ...listOptions(child, filter, o, deps), parent, parentRef, relation, ...(query ? { query } : {}) },
      deps,
    );
  });
}

/** The lower-case values of a policy's type field (`dial`, `bind`), which become flags of the relation list. */
function policyTypes(policy: string, field: string): string[] {
  const type = resource(policy).fields[field].type;
  return type.kind === 'enum' ? type.values.map((v) => v.toLowerCase()) : [];
}

export async function runRelationList(opts: RelationListOptions, deps: Deps): Promise<void> {
  const id = await resolveId(await deps.api(), opts.parent, opts.parentRef);
  await runList({ ...opts, path: `${entityPath(opts.parent, id)}/${opts.relation}` }, deps);
}
