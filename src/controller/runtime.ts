import type { ResourceDef } from '../resources/index.js';
import type { ApiSessions } from './auth/api-sessions.js';
import type { ConcurrencyLimiter } from './auth/limiter.js';
import type { ClientState, PostureReports, ServiceUpdateStamps } from './client-state.js';
import type { PasswordHasher } from './auth/password.js';
import type { LoginThrottling } from './auth/throttle.js';
import type { EnrollmentJwtSigner } from './pki/enrollment-jwt.js';
import type { Pki } from './pki/pki.js';
import type { Validators } from './server/validation.js';
import type { ReadStore } from './store/read-only.js';
import type { Row, Where } from './store/repository.js';

export interface ControllerConfig {
  /** e.g. https://localhost:1280, as clients reach it (enrollment JWT issuer, version apiBaseUrls). */
  publicUrl: string;
  sessionTimeoutMs: number;
  enrollmentDurationMinutes: number;
  version: string;
  /** Origins allowed to send credentials (CORS); other origins get CORS without credentials. */
  corsOrigins?: string[];
}

/** Turns stored rows into read models; a resource with computed fields registers its own. */
export type Presenter = (rows: Row[], rt: Runtime) => Record<string, unknown>[] | Promise<Record<string, unknown>[]>;

/** A create, replace or patch of an entity, as its hooks see it (whichever route makes it). */
export interface Write {
  verb: 'create' | 'replace' | 'patch';
  /** The values written (a route's validated body, with replace defaults): a beforeWrite hook may change them. */
  values: Record<string, unknown>;
  existing?: Row;
  now: string;
}

/**
 * A resource's behaviour around every write of it (`EntityWrites`), run inside the write's transaction: check against
 * other rows, maintain a derived table, refuse a delete (throw an ApiError, e.g. 409 CAN_NOT_DELETE_REFERENCED_ENTITY).
 */
export interface WriteHooks {
  /** Answers the values to write instead of the given ones, or nothing to keep them. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook that only checks is a plain async function returning void
  beforeWrite?(rt: Runtime, write: Write): Promise<Record<string, unknown> | void>;
  afterWrite?(rt: Runtime, write: Write & { id: string }): Promise<void>;
  beforeDelete?(rt: Runtime, row: Row): Promise<void>;
  afterDelete?(rt: Runtime, row: Row): Promise<void>;
}

/**
 * The one write path of entities (model/writes.ts): each write runs the hooks its resource declares, in the
 * write's transaction (the caller's, if one is open). Routes and hooks write nothing else.
 */
export interface EntityWrites {
  /** Answers the id (the one given, or a new one). `stored`: values written with the row that hooks do not see. */
  insert(
    resource: string,
    values: Record<string, unknown>,
    opts: { id?: string; now: string; isSystem?: boolean; stored?: Record<string, unknown> },
  ): Promise<string>;
  /** `target`: the row as read, or its id (read here when the resource's hooks need it). */
  update(
    resource: string,
    target: Row | string,
    values: Record<string, unknown>,
    now: string,
    verb?: Write['verb'],
  ): Promise<void>;
  delete(resource: string, row: Row): Promise<void>;
  /**
   * Inside a transaction: holds the row's write lock until the transaction ends (an update of nothing, which no
   * hook hears of), so that the row read next is the one this transaction will write.
   */
  lockRow(resource: string, id: string, now: string): Promise<void>;
  /** Deletes the rows matching `where`, each with its resource's delete hooks; answers how many. */
  deleteWhere(resource: string, where: Where): Promise<number>;
}

/** Everything handlers use, wired once at start. */
export interface Runtime {
  /** Reads only: writes go through `writes`. */
  store: ReadStore;
  writes: EntityWrites;
  apiSessions: ApiSessions;
  passwords: PasswordHasher;
  /** Bounds the password checks (scrypt) that unauthenticated callers can start. */
  passwordChecks: ConcurrencyLimiter;
  /** Failed password checks per client address and per username (429 with Retry-After), and per identity. */
  loginThrottle: LoginThrottling;
  /**
   * The client API's state in memory (reported posture, service update stamps) and its per-client request budget,
   * whose buckets are in the database when controllers share one; read posture and stamps through `posture` and
   * `serviceUpdates`, which are this alone on a database.
   */
  client: ClientState;
  /** When what each identity sees last changed: `client` alone on a database, the database's rows when shared. */
  serviceUpdates: ServiceUpdateStamps;
  /** What identities reported of their posture: `client` alone on a database, the database's rows when shared. */
  posture: PostureReports;
  validators: Validators;
  pki: Pki;
  /** This controller's row in `controllers` (src/controller/cluster/membership.ts). */
  controllerId: string;
  enrollmentSigner: EnrollmentJwtSigner;
  config: ControllerConfig;
  clock: () => Date;
  log: (line: string) => void;
  accessLog?: (line: string) => void;
  present(def: ResourceDef, rows: Row[]): Promise<Record<string, unknown>[]>;
  /**
   * One entity's read model by id as JSON text (NOT_FOUND if none): `present` of its row, in one read where the model
   * can, or the answer kept since the last write it reads (model/kept-answers.ts) where the model declares it.
   */
  answerById(def: ResourceDef, id: string): Promise<string> | string;
}
