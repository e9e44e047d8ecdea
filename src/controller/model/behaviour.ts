import type { Presenter, Runtime, WriteHooks } from '../runtime.js';
import type { Route } from '../server/types.js';
import type { AnswerKept } from './kept-answers.js';

/**
 * What a resource does beyond its catalogue entry, in its model module (`model/resources/<resource>.ts`, which
 * exports it as `model`): write hooks and a presenter for computed read fields. A resource with neither needs no
 * model module: its catalogue entry is enough.
 */
export interface ResourceModel {
  resource: string;
  /** Run inside the transaction of every write of the resource (model/writes.ts), whichever route makes it. */
  hooks?: WriteHooks;
  present?: Presenter;
  /**
   * One entity by id, read with what its presenter gathers (`present` given the row read first otherwise): on
   * PostgreSQL a GET by id then costs one round trip. Throws NOT_FOUND for an unknown id, as `Repository.get`.
   */
  presentById?: (id: string, rt: Runtime) => Promise<Record<string, unknown>>;
  /**
   * Its answers by id may be kept until a write to what they are read from (model/kept-answers.ts): for a resource
   * read by id far more often than written, such as the identities every SDK asks for at `/current-identity`.
   */
  answerKept?: AnswerKept;
}

/**
 * When hooks run around one write: the resource's own hooks first, then the hooks that other parts of the domain
 * add to it, phase by phase in this order. The order matters where one phase reads what an earlier one left: a
 * signer an auth policy names is refused before any session ends; sessions that lost their permission end before
 * the service update stamps move, and the memory of a deleted identity goes after both have read it.
 */
export const HOOK_PHASES = [
  /** The resource's own hooks (`ResourceModel.hooks`). */
  'own',
  /** Another resource's rules about this one: a signer an auth policy names cannot be deleted. */
  'references',
  /** Sessions end when a write takes their permission away. */
  'sessions',
  /** The service update check moves on the writes that change what identities see. */
  'service-updates',
  /** What the controller keeps in memory per identity goes with the identity. */
  'identity-memory',
  /** Sessions end when a write makes their posture fail. */
  'posture-sessions',
] as const;

export type HookPhase = (typeof HOOK_PHASES)[number];

/** Hooks that follow the consequences of writes of other resources, exported as `consequences` by a model module. */
export interface Consequences {
  phase: Exclude<HookPhase, 'own'>;
  /** Resource name -> the hooks added to its writes. */
  hooks: Record<string, WriteHooks>;
}

/** A module of the model as the registry finds it: a resource's model, consequences, or both. */
export interface ModelModule {
  model?: ResourceModel;
  consequences?: Consequences;
}

/**
 * A route adapter (`routes/<api>/*.ts`, exporting `routes`): reads the request, calls the model, presents the answer.
 * Its routes take over the generic route of the same method and path.
 */
export interface RouteAdapter {
  routes(rt: Runtime): Route[];
}
