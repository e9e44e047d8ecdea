import { X509Certificate } from 'node:crypto';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../../protocol/envelope.js';
import { resource } from '../../../resources/index.js';
import { membershipOf } from '../../cluster/membership.js';
import { sha1FingerprintHex } from '../../pki/fingerprint.js';
import type { Runtime } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { toWire } from '../present.js';

const controller = resource('controller');

/** API bindings a client may see in the client API's list (OpenZiti drops the others there). */
const CLIENT_BINDINGS = new Set(['edge-client', 'edge-oidc']);

function selfId(rt: Runtime): string {
  return rt.controllerId;
}

/**
 * Writes this controller's row at start: name and SHA-1 fingerprint of its server certificate as OpenZiti derives
 * them, the API addresses it serves, and when it joined (now). A row left by an earlier start is brought up to
 * date, so a renewed certificate or a new address shows.
 */
export async function recordSelf(rt: Runtime): Promise<void> {
  const leaf = rt.pki.serverCertPem;
  const base = rt.config.publicUrl;
  const values = {
    name: commonName(leaf),
    ctrlAddress: null,
    apiAddresses: {
      'edge-client': [{ url: `${base}${CLIENT_BASE}`, version: 'v1' }],
      'edge-management': [{ url: `${base}${MANAGEMENT_BASE}`, version: 'v1' }],
    },
    certPem: leaf,
    fingerprint: sha1FingerprintHex(leaf),
    lastJoinedAt: rt.clock().toISOString(),
    lastSeenAt: rt.clock().toISOString(),
  };
  const repo = rt.store.repoFor(controller);
  const now = rt.clock().toISOString();
  await rt.store.tx(async () => {
    const existing = await repo.find(selfId(rt));
    if (existing) await rt.writes.update(controller.name, existing, values, now);
    else await rt.writes.insert(controller.name, values, { id: selfId(rt), now });
  });
}

/** The subject common name of a PEM certificate (the first certificate of a chain), as OpenZiti names a controller. */
function commonName(pem: string): string {
  return /^CN=(.*)$/m.exec(new X509Certificate(pem).subject)?.[1] ?? '';
}

/**
 * The client API's view, as OpenZiti gives it: no control channel address (null there, as this controller has none
 * anyway), and only the addresses of the APIs a client uses.
 */
export function forClients(entity: Record<string, unknown>): Record<string, unknown> {
  const addresses = (entity.apiAddresses ?? {}) as Record<string, unknown>;
  return {
    ...entity,
    ctrlAddress: null,
    apiAddresses: Object.fromEntries(Object.entries(addresses).filter(([binding]) => CLIENT_BINDINGS.has(binding))),
  };
}

function presentControllers(rows: Row[], rt: Runtime): Record<string, unknown>[] {
  return rows.map((row) => Object.assign(toWire(controller, row), membershipOf(row, selfId(rt), rt.clock())));
}

export const model: ResourceModel = { resource: 'controller', present: presentControllers };
