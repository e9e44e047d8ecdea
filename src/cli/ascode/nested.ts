/** A reference inside an object field (an auth policy's `primary.extJwt.allowedSigners`): an id, or a list of ids. */
export interface NestedRef {
  path: readonly string[];
  resource: string;
}

type Mapper = (resource: string, value: string) => string;

/** What these functions read of a kind (kinds.ts declares its nested references with this module's type). */
type Kind = { nestedRefs?: readonly NestedRef[] };

/** A copy of `entity` with each nested reference's value (or each item of it) passed through `map`. */
export function mapNested(kind: Kind, entity: Record<string, unknown>, map: Mapper): Record<string, unknown> {
  const out = structuredClone(entity);
  for (const ref of kind.nestedRefs ?? []) {
    const parent = objectAt(out, ref.path.slice(0, -1));
    const key = ref.path[ref.path.length - 1];
    const value = parent?.[key];
    if (!parent || value === undefined || value === null) continue;
    if (typeof value === 'string') parent[key] = map(ref.resource, value);
    else if (Array.isArray(value)) parent[key] = value.map((v) => (typeof v === 'string' ? map(ref.resource, v) : v));
  }
  return out;
}

/** Every entity name the nested references of `entity` give, with the path it stands at. */
export function nestedNames(kind: Kind, entity: Record<string, unknown>) {
  return (kind.nestedRefs ?? []).flatMap((ref) => {
    const value = objectAt(entity, ref.path.slice(0, -1))?.[ref.path[ref.path.length - 1]];
    const names = typeof value === 'string' ? [value] : Array.isArray(value) ? value.map(String) : [];
    return names.map((name) => ({ at: ref.path.join('.'), resource: ref.resource, name }));
  });
}

function objectAt(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let at: unknown = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>) : undefined;
}
