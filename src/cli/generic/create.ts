// The steps every `create` shares: required booleans default to false, references are resolved to ids, the new id
// is printed for scripts. Each noun's create command (identity/create.ts) is built from them.
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import type { IO } from '../../console/io.js';
import type { FieldInput } from './fields.js';
import { entityPath, resolveRefs } from './resolve.js';

/** A boolean the API requires on create (isAdmin) is false unless its flag is given. */
export function requiredBooleans(def: ResourceDef): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [field, f] of Object.entries(def.fields)) if (f.create === 'required' && f.type.kind === 'boolean') out[field] = false;
  return out;
}

/** POSTs `base` plus the flags given, with references resolved to ids; returns the new id. */
export async function createEntity(api: ApiClient, def: ResourceDef, base: Record<string, unknown>, input: FieldInput): Promise<string> {
  const body = { ...base, ...input.body, ...(await resolveRefs(api, input.refs)) };
  const created = await api.post<{ id: string }>(entityPath(def), body, { api: def.api });
  return created.id;
}

/** stdout gets the id alone, for `id=$(ctl ... create ...)`; the sentence for humans goes to stderr. */
export function announceCreated(io: IO, def: ResourceDef, name: string | undefined, id: string): void {
  io.info(name === undefined ? `created ${def.label} ${id}` : `created ${def.label} "${name}" with id ${id}`);
  io.out(id);
}
