import { invalidField } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import type { ResourceModel } from '../behaviour.js';
import { entityRef, toWire } from '../present.js';

const terminator = resource('terminator');
const service = resource('service');
const router = resource('transit-router');

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The identity secret is bytes, sent as base64 (Swagger `format: byte`). */
async function beforeWrite(_rt: Runtime, write: Write): Promise<void> {
  const secret = write.values.identitySecret;
  if (typeof secret === 'string' && !BASE64.test(secret))
    throw invalidField('identitySecret', 'must be base64 (standard alphabet, padded)', secret);
}

/** Entity references to each terminator's service and router, their names read once per page. */
async function presentTerminators(rows: Row[], rt: Runtime): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const names = async (def: typeof service, ids: string[]) =>
    new Map(
      (await rt.store.repoFor(def).findAll({ id: [...new Set(ids)] }, { columns: ['name'] })).map((r) => [
        r.id,
        r.name as string,
      ]),
    );
  const serviceNames = await names(
    service,
    rows.map((r) => r.service as string),
  );
  const routerNames = await names(
    router,
    rows.map((r) => r.router as string),
  );
  return rows.map((row) => {
    const serviceId = row.service as string;
    const routerId = row.router as string;
    const wire = toWire(terminator, row);
    wire.service = entityRef(service, serviceId, serviceNames.get(serviceId));
    wire.serviceId = serviceId;
    wire.router = entityRef(router, routerId, routerNames.get(routerId));
    wire.routerId = routerId;
    // No circuits pass through this controller, so nothing raises the cost above the static one.
    wire.dynamicCost = row.cost;
    return wire;
  });
}

export const model: ResourceModel = { resource: 'terminator', hooks: { beforeWrite }, present: presentTerminators };
