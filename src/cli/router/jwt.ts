import { FailureError } from '../../console/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { entityPath } from '../generic/resolve.js';
import type { SecretFile } from '../generic/secret-file.js';
import type { JwtOutput } from '../generic/jwt-output.js';

/** A router's outstanding enrollment JWT, as its detail carries it (edge and transit routers alike). */
export async function routerJwt(api: ApiClient, def: ResourceDef, id: string, name: string): Promise<string> {
  const detail = await api.get<{ enrollmentJwt?: string | null }>(entityPath(def, id));
  if (!detail.enrollmentJwt) throw new FailureError(`the controller returned no enrollment JWT for ${def.label} "${name}" (${id})`);
  return detail.enrollmentJwt;
}

/**
 * Hands the JWT over as asked: into the reserved file, or alone on stdout (so that `> router.jwt` works, the sentence
 * for people going to stderr). `said` is what was done, printed either way.
 */
export async function deliverJwt(
  deps: Deps,
  opts: JwtOutput,
  file: SecretFile | undefined,
  jwt: string,
  said: () => void | Promise<void>,
): Promise<void> {
  if (!file) {
    await said();
    deps.io.out(jwt);
    return;
  }
  await file.write(jwt);
  await said();
  deps.io.info(`wrote the enrollment JWT to ${opts.jwtOutput}`);
}
