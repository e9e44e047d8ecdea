import type { ResourceDef } from '../resources/index.js';
import { accessibleServices, permissionsOf } from './model/access.js';
import { accessRoutes } from './routes/client/access.js';
import { postureDataRoutes } from './routes/management/posture-data.js';
import { postureResponseRoutes } from './routes/client/posture-responses.js';
import { SERVICE_UPDATE_HOOKS } from './model/service-updates.js';
import { serviceUpdateRoutes } from './routes/client/service-updates.js';
import { clientNetworkRoutes, withClientBudget } from './routes/client/client-network.js';
import { POSTURE_SESSION_HOOKS } from './model/posture/sessions.js';
import { IDENTITY_MEMORY_HOOKS } from './model/identity-memory.js';
import { authenticateRoutes } from './routes/client/authenticate.js';
import { authPolicyBehaviour, authPolicySignerBehaviour } from './routes/management/auth-policies.js';
import { authenticatorBehaviour } from './routes/management/authenticators.js';
import { caBehaviour } from './routes/management/cas.js';
import { apiSessionCertificateBehaviour } from './routes/client/api-session-certificates.js';
import { configBehaviour, configTypeBehaviour } from './routes/management/configs.js';
import { crudRoutes } from './routes/kit/crud.js';
import { apiSessionBehaviour, currentRoutes } from './routes/client/current.js';
import { enrollmentBehaviour } from './routes/management/enrollments.js';
import { externalJwtSignerBehaviour } from './routes/management/external-jwt-signers.js';
import { edgeRouterBehaviour } from './routes/management/edge-routers.js';
import { identityBehaviour } from './routes/management/identities.js';
import { routerBehaviour } from './routes/management/routers.js';
import { terminatorBehaviour } from './routes/management/terminators.js';
import { metaRoutes } from './routes/meta.js';
import { mfaBehaviour } from './routes/client/mfa.js';
import {
  edgeRouterPolicyBehaviour,
  serviceEdgeRouterPolicyBehaviour,
  servicePolicyBehaviour,
} from './routes/management/policies.js';
import { postureCheckBehaviour } from './routes/management/posture-checks.js';
import { SESSION_LIFECYCLE_HOOKS } from './model/session-lifecycle.js';
import { sessionBehaviour } from './routes/client/sessions.js';
import { controllerBehaviour } from './routes/management/controllers.js';
import { databaseRoutes } from './routes/management/database.js';
import { tracingRoutes } from './routes/management/tracing.js';
import { serviceBehaviour } from './routes/management/services.js';
import { toWire } from './model/present.js';
import type { ResourceBehaviour } from './model/behaviour.js';
import type { Presenter, Runtime, WriteHooks } from './runtime.js';
import type { ApiName, Route } from './server/types.js';
import type { Row } from './store/repository.js';

export const BEHAVIOURS: readonly ResourceBehaviour[] = [
  identityBehaviour,
  authenticatorBehaviour,
  enrollmentBehaviour,
  apiSessionBehaviour,
  configTypeBehaviour,
  configBehaviour,
  servicePolicyBehaviour,
  edgeRouterPolicyBehaviour,
  serviceEdgeRouterPolicyBehaviour,
  postureCheckBehaviour,
  sessionBehaviour,
  controllerBehaviour,
  serviceBehaviour({ permissions: permissionsOf, accessible: accessibleServices }),
  edgeRouterBehaviour,
  routerBehaviour,
  terminatorBehaviour,
  caBehaviour,
  externalJwtSignerBehaviour,
  mfaBehaviour,
  authPolicyBehaviour,
  // A signer an auth policy names cannot be deleted.
  authPolicySignerBehaviour,
  apiSessionCertificateBehaviour,
  // Sessions end when a write takes their permission away: hooks on the resources that decide permissions.
  ...Object.entries(SESSION_LIFECYCLE_HOOKS).map(([resource, hooks]) => ({ resource, hooks })),
  // The service update check moves on the writes that change what identities see.
  ...Object.entries(SERVICE_UPDATE_HOOKS).map(([resource, hooks]) => ({ resource, hooks })),
  // What the controller keeps in memory per identity goes with the identity.
  { resource: 'identity', hooks: IDENTITY_MEMORY_HOOKS },
  // Sessions end when a write makes their posture fail.
  ...Object.entries(POSTURE_SESSION_HOOKS).map(([resource, hooks]) => ({ resource, hooks })),
];

/**
 * The hooks of every behaviour registered for a resource, run in registration order (a resource's own behaviour
 * first; others may add to it, as sessions do on the writes that decide permissions).
 */
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

export interface Registry {
  routes: Route[];
  present(def: ResourceDef, rows: Row[]): Promise<Record<string, unknown>[]>;
  hooks(resource: string): WriteHooks;
}

/** Every route of the controller: behaviours first (they take over generic routes), then the catalogue's, then meta. */
export function buildRoutes(rt: Runtime, behaviours: readonly ResourceBehaviour[] = BEHAVIOURS): Registry {
  const presenters = new Map<string, Presenter>();
  for (const b of behaviours) if (b.present) presenters.set(b.resource, b.present);
  const hooks = new Map<string, WriteHooks>();
  for (const name of new Set(behaviours.map((b) => b.resource))) {
    hooks.set(name, composeHooks(behaviours.filter((b) => b.resource === name && b.hooks).map((b) => b.hooks!)));
  }
  const handlerRoutes = [
    ...behaviours.flatMap((b) => b.routes?.(rt) ?? []),
    ...authenticateRoutes(rt),
    ...currentRoutes(rt),
    ...accessRoutes(rt),
    ...postureDataRoutes(rt),
    ...postureResponseRoutes(rt),
    ...serviceUpdateRoutes(rt),
    ...clientNetworkRoutes(rt),
    ...databaseRoutes(rt),
    ...tracingRoutes(rt),
  ];
  const taken = (r: Pick<Route, 'method' | 'path' | 'api'>) =>
    handlerRoutes.some((h) => h.method === r.method && h.path === r.path && (h.api === r.api || h.api === 'both'));
  const routes = [...handlerRoutes, ...crudRoutes(rt, taken)];
  routes.push(...metaRoutes(rt, (api: ApiName) => routes.filter((r) => r.api === api || r.api === 'both'), new Date()));
  return {
    routes: routes.map((r) => withClientBudget(rt, r)),
    present: async (def, rows) => {
      const presenter = presenters.get(def.name);
      return presenter ? presenter(rows, rt) : rows.map((row) => toWire(def, row));
    },
    hooks: (resource) => hooks.get(resource) ?? {},
  };
}
