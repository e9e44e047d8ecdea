import { fileField, fileFields, fileKey } from './document.js';
import type { Kind } from './kinds.js';

/**
 * Files written by OpenZiti's `ziti ops export` (JSON or YAML) are read as they are. They use the same top-level
 * keys and name references by name, with these differences, undone here:
 * - a reference and each item of a reference list carry an `@` (`configType: "@intercept.v1"`, `configs: ["@web"]`);
 * - entities carry fields of the read model that a create does not take (`isSystem`, `typeId`, an edge router's
 *   `isTunnelerEnabled` beside `unverifiedFingerprint`...): they are ignored, and listed in a note;
 * - an identity's type is written as `typeId`;
 * - a signer's enrollment auth policy is written as `enrollAuthPolicyId`, the id it had on the controller it was
 *   exported from: read as that id on the controller the file is applied to (openziti-ids.ts);
 * - a service policy's `postureCheckRoles` is always empty (the exporter collects those names into the wrong
 *   list), so an empty one is read as not stated rather than as "no posture checks".
 */

/** Whether `entity`, of `kind`, can only come from OpenZiti's export: a field or value this format never writes. */
export function looksLikeOpenZiti(kind: Kind, entity: Record<string, unknown>): boolean {
  const keys = fileKeys(kind);
  return Object.entries(entity).some(([key, value]) => {
    // A reference written as an id (`enrollAuthPolicyId`) is OpenZiti's, and also what ctl's export wrote before it
    // named the reference: no sign of either.
    if (idKeyOf(kind, key, entity) !== undefined) return false;
    if (!keys.has(key)) return key in kind.def.fields || key === 'isSystem' || key.endsWith('RolesDisplay');
    return refValues(kind, key, value).some((v) => v.startsWith('@'));
  });
}

/**
 * The entity as this format states it, the names of the fields that were dropped, and the keys whose value is an
 * id rather than a name.
 */
export function fromOpenZiti(kind: Kind, entity: Record<string, unknown>) {
  const keys = fileKeys(kind);
  const out: Record<string, unknown> = {};
  const ignored: string[] = [];
  const byId: string[] = [];
  for (const [key, value] of Object.entries(entity)) {
    const renamed = readAs(kind, key);
    const named = idKeyOf(kind, key, entity);
    if (renamed !== undefined && !(renamed in entity)) out[renamed] = value;
    else if (named !== undefined) {
      out[named] = value;
      byId.push(named);
    } else if (!keys.has(key)) ignored.push(key);
    else if (kind.key === 'servicePolicies' && key === 'postureCheckRoles' && isEmptyList(value)) continue;
    else out[key] = stripAt(kind, key, value);
  }
  return { entity: out, ignored, byId };
}

/**
 * An entity of this format whose references are written as ids (`enrollAuthPolicyId`, as ctl's export wrote the
 * signer's enrollment auth policy before it named it, or any reference's `...Id` key where the entity does not also
 * give the reference by name): each read as that reference, by id; the keys whose value is an id rather than a name.
 */
export function fromIdKeys(kind: Kind, entity: Record<string, unknown>) {
  const out: Record<string, unknown> = {};
  const byId: string[] = [];
  for (const [key, value] of Object.entries(entity)) {
    const named = idKeyOf(kind, key, entity);
    out[named ?? key] = value;
    if (named !== undefined) byId.push(named);
  }
  return { entity: out, ignored: [] as string[], byId };
}

/** The file key a reference written as an id under `key` stands for, unless the entity also states that key. */
function idKeyOf(kind: Kind, key: string, entity: Record<string, unknown>): string | undefined {
  const named = referenceById(kind, key);
  return named !== undefined && !(named in entity) ? named : undefined;
}

function fileKeys(kind: Kind): Set<string> {
  return new Set([...fileFields(kind).map(([f, def]) => fileKey(f, def)), 'tags']);
}

/** `typeId` for `type`: a field written as a name and served as an entity reference, whose id OpenZiti writes. */
function readAs(kind: Kind, key: string): string | undefined {
  const field = key.replace(/Id$/, '');
  return key !== field && kind.def.fields[field]?.read?.type?.kind === 'entityRef' ? field : undefined;
}

/** `enrollAuthPolicy` for `enrollAuthPolicyId`: a reference under its API name, which OpenZiti writes as an id. */
function referenceById(kind: Kind, key: string): string | undefined {
  const field = fileFields(kind).find(([name, def]) => name === key && def.type.kind === 'ref');
  return field === undefined || fileKey(...field) === key ? undefined : fileKey(...field);
}

function refValues(kind: Kind, key: string, value: unknown): string[] {
  const def = fileField(kind, key)?.[1];
  if (def?.type.kind === 'ref') return typeof value === 'string' ? [value] : [];
  if (def?.type.kind !== 'refList' || !Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string');
}

function stripAt(kind: Kind, key: string, value: unknown): unknown {
  if (refValues(kind, key, value).length === 0) return value;
  const strip = (v: unknown) => (typeof v === 'string' && v.startsWith('@') ? v.slice(1) : v);
  return Array.isArray(value) ? value.map(strip) : strip(value);
}

function isEmptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}
