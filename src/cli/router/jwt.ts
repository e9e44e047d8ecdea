import { FailureError } from '../../console/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import { entityPath } from '../generic/resolve.js';

/** A router's outstanding enrollment JWT, as its detail carries it (edge and transit routers alike). */
export async function routerJwt(api: ApiClient, def: ResourceDef, id: string, name: string): Promise<string> {
  const detail = await api.get<{ enrollmentJwt?: string | null }>(entityPath(def, id));
  if (!detail.enrollmentJwt)
    throw new FailureError(`the controller returned no enrollment JWT for ${def.label} "${name}" (${id})`);
  return detail.enrollmentJwt;
}
