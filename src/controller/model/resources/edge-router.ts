import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';
import { mirrorEdgeRouter, addRouterState, routerEnrollment } from './transit-router.js';

const edgeRouter = resource('edge-router');

/**
 * The name OpenZiti gives the system edge router policy of a tunneler-enabled router (ctrl/db/edge_router_store.go).
 */
function systemPolicyName(routerId: string): string {
  return `edge-router-${routerId}-system`;
}

/**
 * A tunneler-enabled router acts as an SDK client too, so OpenZiti gives it an identity of type Router (same id and
 * name as the router) and a system edge router policy letting that identity use the router itself: id = router id,
 * AnyOf, identityRoles ["@<id>"], edgeRouterRoles ["@<id>"]. The policy is built in (isSystem): it cannot be updated
 * or deleted through the API, only by turning the tunneler off or deleting the router.
 */
async function enableTunneler(rt: Runtime, router: Row, now: string): Promise<void> {
  const id = router.id;
  if (await rt.store.repo('identity').exists({ name: router.name as string })) {
    throw invalidField(
      'isTunnelerEnabled',
      'a tunneler-enabled router gets an identity named after ' +
        `it, and an identity named '${router.name}' exists already`,
      true,
    );
  }
  await rt.writes.insert('identity', { name: router.name, type: 'Router', isAdmin: false }, { id, now });
  const policy = {
    name: systemPolicyName(id),
    semantic: 'AnyOf',
    identityRoles: [`@${id}`],
    edgeRouterRoles: [`@${id}`],
  };
  await rt.writes.insert('edge-router-policy', policy, { id, now, isSystem: true });
}

/** Undoes enableTunneler: the system policy first (it names the identity), then the Router identity. */
async function disableTunneler(rt: Runtime, routerId: string): Promise<void> {
  const policy = await rt.store.repo('edge-router-policy').find(routerId);
  if (policy?.isSystem) await rt.writes.delete('edge-router-policy', policy);
  const identity = await rt.store.repo('identity').find(routerId);
  // Only the identity the router made: an ordinary identity that happens to share the id is never touched.
  if (identity?.type === 'Router') await rt.writes.delete('identity', identity);
}

/** The router identity follows the router's name, as in OpenZiti. */
async function renameRouterIdentity(rt: Runtime, routerId: string, name: string, now: string): Promise<void> {
  const identity = await rt.store.repo('identity').find(routerId);
  if (identity?.type !== 'Router' || identity.name === name) return;
  await rt.writes.update('identity', identity, { name }, now);
}

async function afterWrite(rt: Runtime, write: Write & { id: string }): Promise<void> {
  await mirrorEdgeRouter(rt, write.id, write.now);
  const router = await rt.store.repo('edge-router').get(write.id);
  const was = write.existing?.isTunnelerEnabled === true;
  const is = router.isTunnelerEnabled === true;
  if (!was && is) await enableTunneler(rt, router, write.now);
  else if (was && !is) await disableTunneler(rt, router.id);
  else if (is && write.existing && write.existing.name !== router.name)
    await renameRouterIdentity(rt, router.id, router.name as string, write.now);
}

/** The router's row in the routers table goes too (and with it, by cascade, its terminators). */
async function afterDelete(rt: Runtime, row: Row): Promise<void> {
  if (row.isTunnelerEnabled) await disableTunneler(rt, row.id);
  const router = await rt.store.repo('transit-router').find(row.id);
  if (router) await rt.writes.delete('transit-router', router);
}

/**
 * Re-enrollment (interface: "Edge router re-enroll"): a new erott enrollment replaces any outstanding one, and the
 * enrolled certificate is removed, so the router cannot authenticate until it enrolls again.
 */
export async function reEnrollEdgeRouter(rt: Runtime, existing: Row, at: Date): Promise<void> {
  const enrollment = await routerEnrollment(rt, existing.id, 'erott', at);
  const now = at.toISOString();
  const values = {
    ...enrollment,
    fingerprint: null,
    certPem: null,
    unverifiedCertPem: null,
    unverifiedFingerprint: null,
    isVerified: false,
  };
  await rt.writes.update(edgeRouter.name, existing, values, now);
}

/** What a router reports when it connects; none has connected to this controller (docs/controller.md, "Routers"). */
const NEVER_CONNECTED = {
  hostname: '',
  syncStatus: 'SYNC_UNKNOWN',
  supportedProtocols: {},
  versionInfo: { os: '', arch: '', version: '', revision: '', buildDate: '' },
};

export const model: ResourceModel = {
  resource: 'edge-router',
  hooks: { afterWrite, afterDelete },
  present: (rows) => rows.map((row) => Object.assign(addRouterState(toWire(edgeRouter, row), row), NEVER_CONNECTED)),
};
