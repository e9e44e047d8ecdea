// What a write prints on stdout, once for every noun: the table and text formats keep their short answer (the new
// id on create, for `id=$(ctl ... create ...)`; nothing on update or delete, whose sentences go to stderr), while
// -o json|yaml print the result as data: the entity as the controller now holds it, or the ids deleted.
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { asFormat, isHuman } from '../output/formats.js';
import { renderIds, renderOne } from '../output/render.js';
import { entityPath } from './resolve.js';

/**
 * After a create or an update of entity `id`: `human` (if any) for the table formats, else the entity, read back
 * because a POST answers only its id and a PATCH nothing (and the read model has what the controller computed).
 */
export async function printWritten(deps: Deps, def: ResourceDef, id: string, human?: string): Promise<void> {
  const format = asFormat(deps.globals().output);
  if (isHuman(format)) {
    if (human !== undefined) deps.io.out(human);
    return;
  }
  const entity = await (await deps.api()).get<Record<string, unknown>>(entityPath(def, id), { api: def.api });
  await renderOne(deps.io, entity, { format, def });
}

/** After a delete: with -o json|yaml, the ids that are gone (an array, `[]` when none); nothing for the tables. */
export async function printDeleted(deps: Deps, ids: readonly string[]): Promise<void> {
  const format = asFormat(deps.globals().output);
  if (!isHuman(format)) await renderIds(deps.io, ids, format);
}
