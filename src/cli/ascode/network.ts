import type { ApiClient } from '../../client/types.js';
import { FailureError } from '../../console/errors.js';
import { resource } from '../../resources/index.js';
import { everyPage, stoppedAt } from '../generic/pages.js';
import { entityPath } from '../generic/resolve.js';
import { byName, fileFields, toFileEntity } from './document.js';
import type { FileEntity } from './document.js';
import type { Kind } from './kinds.js';

/** The network as the controller has it, for the kinds asked for. */
export interface Network {
  /** The file document of those kinds: each kind's key with its entities by name, in dependency order. */
  document: Record<string, FileEntity[]>;
  /** Ids by name of every entity of those kinds and of the kinds they name, the controller's own rows included. */
  ids: Map<string, Map<string, string>>;
  /** The rows as served, by resource (a config type's schema, to check config data against). */
  rows: Map<string, Record<string, unknown>[]>;
}

/**
 * Reads `kinds` and every kind they name, together, and writes them as the file would. `known`: rows read already
 * (a narrower network's), not read again.
 */
export async function readNetwork(api: ApiClient, kinds: readonly Kind[], known?: Network['rows']): Promise<Network> {
  const wanted = [...new Set(kinds.flatMap((k) => [k.def.name, ...referenced(k)]))];
  const rows = new Map(known);
  for (const [name, list] of await readAll(
    api,
    wanted.filter((name) => !rows.has(name)),
  ))
    rows.set(name, list);
  const names = new Map([...rows].map(([name, list]) => [name, new Map(list.map((r) => [`${r.id}`, `${r.name}`]))]));
  const nameOf = (resourceName: string, id: string) => names.get(resourceName)?.get(id);
  const document: Record<string, FileEntity[]> = {};
  for (const kind of kinds) {
    const own = rowsOfKind(kind, rows).filter((row) => !kind.isOwnedByController?.(row));
    document[kind.key] = own.map((row) => toFileEntity(kind, row, nameOf)).sort(byName);
  }
  const ids = new Map([...names].map(([name, byId]) => [name, new Map([...byId].map(([id, n]) => [n, id]))]));
  return { document, ids, rows };
}

/**
 * The rows of a kind as read, without those its list serves for the resource it `alsoLists` (a transit router's list
 * serves the edge routers too, under the same ids): those are that kind's.
 */
export function rowsOfKind(kind: Kind, rows: Network['rows']): Record<string, unknown>[] {
  const own = rows.get(kind.def.name) ?? [];
  if (kind.alsoLists === undefined) return own;
  const others = new Set((rows.get(kind.alsoLists) ?? []).map((r) => r.id));
  return own.filter((row) => !others.has(row.id));
}

/** The resources a kind's fields name (nested ones too), whose ids the file writes as names, and the one its list
 * also serves. */
function referenced(kind: Kind): string[] {
  const named = [
    ...fileFields(kind).flatMap(([, f]) => ('resource' in f.type ? [f.type.resource] : [])),
    ...(kind.nestedRefs ?? []).map((r) => r.resource),
  ];
  return kind.alsoLists === undefined ? named : [...named, kind.alsoLists];
}

/**
 * Adds to `network.rows` the rows of these kinds (and of those their lists also serve) not read yet: what a check
 * reads of the controller beyond the file's kinds, without reading the others again.
 */
export async function readMissingRows(api: ApiClient, network: Network, kinds: readonly Kind[]): Promise<void> {
  const wanted = kinds.flatMap((k) => (k.alsoLists === undefined ? [k.def.name] : [k.def.name, k.alsoLists]));
  const missing = [...new Set(wanted)].filter((name) => !network.rows.has(name));
  if (missing.length === 0) return;
  for (const [name, rows] of await readAll(api, missing)) network.rows.set(name, rows);
}

/** Every row of each resource, read together. A read that would miss rows fails rather than work on a part. */
async function readAll(api: ApiClient, resources: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
  const lists = await Promise.all(
    resources.map(async (name) => {
      const def = resource(name);
      const tooMany = (n: number) => {
        throw new FailureError(`cannot read every ${def.label}: ${stoppedAt(n)}`);
      };
      const { rows } = await everyPage<Record<string, unknown>>(api, entityPath(def), {}, { api: def.api }, tooMany);
      return [name, rows] as const;
    }),
  );
  return new Map(lists);
}
