// Finding a policy by name or id without knowing its kind: the one rule of resolve.ts, across the policy resources.
import { Argument } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import { NotFoundError, UsageError } from '../../console/errors.js';
import { type Entity, isNotFound, lookup } from '../generic/resolve.js';
import { completeWith } from '../completion/hints.js';
import { POLICY_RESOURCES } from './kinds.js';

export interface FoundPolicy {
  def: ResourceDef;
  entity: Entity;
}

/** The `<name-or-id>` of a policy of any kind, completed in the shell with the names of every kind. */
export function policyArgument<S extends '<name-or-id>' | '<name-or-id...>'>(syntax: S, description: string) {
  const names = { kind: 'resource', resource: POLICY_RESOURCES.map((d) => d.name) } as const;
  return completeWith(new Argument(syntax, description), names);
}

export async function findPolicy(api: ApiClient, ref: string): Promise<FoundPolicy> {
  const found: FoundPolicy[] = [];
  for (const def of POLICY_RESOURCES) {
    try {
      found.push({ def, entity: await lookup(api, def, ref) });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  if (found.length === 0) throw new NotFoundError(`no policy named or with id "${ref}"`);
  if (found.length > 1) {
    throw new UsageError(
      `"${ref}" names ${found.length} policies of different kinds: give the id of the one you mean`,
      found.map((f) => `${f.entity.id}  ${f.def.label}`),
    );
  }
  return found[0];
}
