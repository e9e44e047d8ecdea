// Entities made with an enrollment JWT (identities, routers) and JWTs handed out again (a router re-enrolled): the
// file claimed before the controller is asked, and the JWT delivered where --jwt-output says, in one way.
import type { ApiClient } from '../../client/types.js';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { announceCreated } from './create.js';
import { reserveJwtOutput, type JwtOutput } from './jwt-output.js';
import type { SecretFile } from './secret-file.js';

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

/**
 * Creates an entity that comes with an enrollment JWT. Without --jwt-output it says what was made, as every create
 * does; with it the JWT is fetched (`jwtOf`) and delivered, the file being claimed before `create` runs and freed if
 * the controller refuses, so that a retry finds the path free.
 */
export async function createWithJwt(
  deps: Deps,
  def: ResourceDef,
  opts: JwtOutput & { name: string },
  create: (api: ApiClient) => Promise<string>,
  jwtOf: (api: ApiClient, id: string) => Promise<string>,
): Promise<void> {
  const file = await reserveJwtOutput(opts);
  let id: string;
  try {
    id = await create(await deps.api());
  } catch (err) {
    await file?.abandon();
    throw err;
  }
  if (opts.jwtOutput === undefined) return announceCreated(deps, def, opts.name, id);
  const jwt = await jwtOf(await deps.api(), id);
  // With the JWT on stdout, the id goes only into the sentence on stderr: stdout carries one thing.
  const said = file
    ? () => announceCreated(deps, def, opts.name, id)
    : () => deps.io.info(`created ${def.label} "${opts.name}" with id ${id}`);
  await deliverJwt(deps, opts, file, jwt, said);
}
