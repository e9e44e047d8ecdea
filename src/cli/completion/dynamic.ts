import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../../client/profiles.js';
import { MAX_LIMIT } from '../../protocol/paging.js';
import { resource } from '../../resources/index.js';
import type { Deps } from '../deps.js';
import type { DynamicValues } from './candidates.js';

/**
 * Completion values from outside the tree. A TAB must feel instant and must never print an error into the
 * user's command line, so every lookup here is silent on failure (no candidates), entity names are cached briefly
 * in the config directory, and the controller gets a short deadline.
 */
const CACHE_FILE = 'completion-cache.json';
const CACHE_TTL_MS = 30_000;
const DEADLINE_MS = 1_500;

type Cache = Record<string, { at: number; names: string[]; attributes: string[] }>;

export function dynamicValues(deps: Deps): DynamicValues {
  return async (source) => {
    try {
      switch (source.kind) {
        case 'profile':
          return profileNames(deps.env);
        case 'resource': {
          const resources = typeof source.resource === 'string' ? [source.resource] : source.resource;
          return (await Promise.all(resources.map((r) => entities(deps, r)))).flatMap((found) => found.names);
        }
        case 'attribute':
          return (await entities(deps, source.resource)).attributes;
        case 'role': {
          const { names, attributes } = await entities(deps, source.resource);
          return ['#all', ...attributes.map((a) => `#${a}`), ...names.map((n) => `@${n}`)];
        }
        default:
          return [];
      }
    } catch {
      return [];
    }
  };
}

/** Profile names straight from config.json: opening the profile store would load far more than a TAB can afford. */
export function profileNames(env: NodeJS.ProcessEnv): string[] {
  const settings = readJson(join(configDir(env), 'config.json')) as { profiles?: Record<string, unknown> } | undefined;
  return Object.keys(settings?.profiles ?? {});
}

/** Names of a resource's entities and the role attributes in use on them: what names and roles complete to. */
interface Entities {
  names: string[];
  attributes: string[];
}

async function entities(deps: Deps, resourceName: string): Promise<Entities> {
  const file = join(configDir(deps.env), CACHE_FILE);
  const key = `${deps.globals().profile ?? deps.env.CTL_PROFILE ?? ''}\u0000${resourceName}`;
  const now = deps.clock().getTime();
  const cache = (readJson(file) ?? {}) as Cache;
  const hit = cache[key];
  if (hit && now - hit.at >= 0 && now - hit.at < CACHE_TTL_MS && Array.isArray(hit.attributes)) return hit;
  const found = await withDeadline(fetchEntities(deps, resourceName), DEADLINE_MS);
  try {
    writeJson(file, { ...fresh(cache, now), [key]: { at: now, ...found } });
  } catch {
    // A cache that cannot be written only costs speed.
  }
  return found;
}

/**
 * Names from one page of the entities; attributes from the resource's role-attribute list
 * (`/identity-role-attributes`), which the controller keeps as the set in use, so completion offers every attribute,
 * not only those of one page.
 */
async function fetchEntities(deps: Deps, resourceName: string): Promise<Entities> {
  const def = resource(resourceName);
  const api = await deps.api();
  const listPath = def.roleAttributes?.listPath;
  const [page, attributes] = await Promise.all([
    api.list<Record<string, unknown> & { id: string }>(`/${def.plural}`, { limit: MAX_LIMIT }, { api: def.api }),
    listPath
      ? api.list<unknown>(`/${listPath}`, { limit: MAX_LIMIT }, { api: def.api }).then((p) => p.data)
      : Promise.resolve([]),
  ]);
  const inUse = attributes.filter((a): a is string => typeof a === 'string');
  return {
    names: page.data.map((e) => (typeof e.name === 'string' ? e.name : e.id)),
    attributes: [...new Set(inUse)].sort(),
  };
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('completion deadline')), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Drops expired entries so that the cache does not grow with every profile and resource ever completed. */
function fresh(cache: Cache, now: number): Cache {
  return Object.fromEntries(Object.entries(cache).filter(([, v]) => now - v.at < CACHE_TTL_MS));
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Written aside and renamed, so that two TABs at once never leave half a file. */
function writeJson(file: string, data: unknown): void {
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(data), { mode: 0o600 });
  renameSync(tmp, file);
}
