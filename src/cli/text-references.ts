import type { FieldDef, ResourceDef } from '../resources/types.js';

const views = new WeakMap<ResourceDef, ResourceDef>();

/**
 * The resource as the CLI takes and writes it: a field that holds another resource's id as text (`refersTo`, a
 * signer's `enrollAuthPolicyId`) is typed as a reference to it, so its flag takes a name or an id and the network
 * file names the entity. The controller keeps the catalogue's own type. One view per resource, made once.
 */
export function withTextReferences(def: ResourceDef): ResourceDef {
  const known = views.get(def);
  if (known) return known;
  const retyped = Object.entries(def.fields).filter(([, f]) => f.refersTo !== undefined);
  const view: ResourceDef =
    retyped.length === 0
      ? def
      : { ...def, fields: { ...def.fields, ...Object.fromEntries(retyped.map(([name, f]) => [name, asRef(f)])) } };
  views.set(def, view);
  return view;
}

function asRef(field: FieldDef): FieldDef {
  return { ...field, type: { kind: 'ref', resource: field.refersTo as string } };
}
