import { type ResourceDef, resource } from '../resources/index.js';
import { MODEL_MODULES, ROUTE_ADAPTERS } from './discovered-modules.js';
import {
  HOOK_PHASES,
  type HookPhase,
  type ModelModule,
  type ResourceModel,
  type RouteAdapter,
} from './model/behaviour.js';
import { KeptAnswers } from './model/kept-answers.js';
import { toWire } from './model/present.js';
import { withClientBudget } from './routes/client/client-network.js';
import { crudRoutes } from './routes/kit/crud.js';
import { metaRoutes } from './routes/meta.js';
import type { Runtime, WriteHooks } from './runtime.js';
import type { ApiName, Route } from './server/types.js';
import type { Row } from './store/repository.js';

/** What the registry assembles: by default every module `scripts/controller-modules.mjs` found. */
export interface ControllerModules {
  models: readonly ModelModule[];
  adapters: readonly RouteAdapter[];
}

export const DISCOVERED: ControllerModules = { models: MODEL_MODULES, adapters: ROUTE_ADAPTERS };

/** Runs the given hooks one after the other, each beforeWrite seeing the values the previous one answered. */
function composeHooks(all: WriteHooks[]): WriteHooks {
  if (all.length <= 1) return all[0] ?? {};
  return {
    async beforeWrite(rt, write) {
      let changed: Record<string, unknown> | undefined;
      for (const h of all) {
        const values = await h.beforeWrite?.(rt, write);
        if (values) write = { ...write, values: (changed = values) };
      }
      return changed;
    },
    async afterWrite(rt, write) {
      for (const h of all) await h.afterWrite?.(rt, write);
    },
    async beforeDelete(rt, row) {
      for (const h of all) await h.beforeDelete?.(rt, row);
    },
    async afterDelete(rt, row) {
      for (const h of all) await h.afterDelete?.(rt, row);
    },
  };
}

/** Each resource's hooks, in the order of `HOOK_PHASES`; a phase holds one set per resource. */
function hooksByResource(models: readonly ModelModule[]): Map<string, WriteHooks> {
  const placed: Array<{ resource: string; phase: HookPhase; hooks: WriteHooks }> = [];
  for (const m of models) {
    if (m.model?.hooks) placed.push({ resource: m.model.resource, phase: 'own', hooks: m.model.hooks });
    const c = m.consequences;
    if (c) for (const [resource, hooks] of Object.entries(c.hooks)) placed.push({ resource, phase: c.phase, hooks });
  }
  const byResource = new Map<string, WriteHooks>();
  for (const resource of new Set(placed.map((p) => p.resource))) {
    const sets = HOOK_PHASES.flatMap((phase) => placed.filter((p) => p.resource === resource && p.phase === phase));
    const twice = sets.find((s, i) => sets[i + 1]?.phase === s.phase);
    if (twice) throw new Error(`two sets of hooks for resource '${resource}' in phase '${twice.phase}'`);
    byResource.set(resource, composeHooks(sets.map((s) => s.hooks)));
  }
  return byResource;
}

function presenters(models: readonly ModelModule[]): Map<string, ResourceModel> {
  const byResource = new Map<string, ResourceModel>();
  for (const { model } of models) {
    if (!model?.present) continue;
    if (byResource.has(model.resource)) throw new Error(`two presenters for resource '${model.resource}'`);
    byResource.set(model.resource, model);
  }
  return byResource;
}

export interface Registry {
  routes: Route[];
  present(def: ResourceDef, rows: Row[]): Promise<Record<string, unknown>[]>;
  answerById(def: ResourceDef, id: string): Promise<string> | string;
  hooks(resource: string): WriteHooks;
}

/** Every route of the controller: the adapters' first (they take over generic routes), the catalogue's, then meta. */
export function buildRoutes(rt: Runtime, modules: ControllerModules = DISCOVERED): Registry {
  const presenterOf = presenters(modules.models);
  const keptAnswers = new Map(
    modules.models.flatMap(({ model }) => {
      if (!model?.answerKept) return [];
      const { presentById } = model;
      const def = resource(model.resource);
      const read = (id: string) => (presentById ? presentById(id, rt) : presentRead(rt, def, id));
      return [[model.resource, new KeptAnswers(() => rt.store, model.answerKept, read)] as const];
    }),
  );
  const hooks = hooksByResource(modules.models);
  const handlerRoutes = modules.adapters.flatMap((a) => a.routes(rt));
  const taken = (r: Pick<Route, 'method' | 'path' | 'api'>) =>
    handlerRoutes.some((h) => h.method === r.method && h.path === r.path && (h.api === r.api || h.api === 'both'));
  const routes = [...handlerRoutes, ...crudRoutes(rt, taken)];
  routes.push(...metaRoutes(rt, (api: ApiName) => routes.filter((r) => r.api === api || r.api === 'both'), new Date()));
  return {
    routes: routes.map((r) => withClientBudget(rt, r)),
    present: async (def, rows) => {
      const presenter = presenterOf.get(def.name)?.present;
      return presenter ? presenter(rows, rt) : rows.map((row) => toWire(def, row));
    },
    answerById: (def, id) => {
      const kept = keptAnswers.get(def.name);
      if (kept) return kept.answer(id);
      const byId = presenterOf.get(def.name)?.presentById;
      return (byId ? byId(id, rt) : presentRead(rt, def, id)).then((answer) => JSON.stringify(answer));
    },
    hooks: (resource) => hooks.get(resource) ?? {},
  };
}

/** One entity presented from its row, for a resource whose model does not present by id. */
async function presentRead(rt: Runtime, def: ResourceDef, id: string): Promise<Record<string, unknown>> {
  return (await rt.present(def, [await rt.store.repoFor(def).get(id)]))[0];
}
