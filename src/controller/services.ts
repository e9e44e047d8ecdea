import type { ResourceDef } from '../resources/index.js';
import type { ApiSessions } from './auth/api-sessions.js';
import type { ConcurrencyLimiter } from './auth/limiter.js';
import type { LoginThrottle } from './auth/throttle.js';
import type { EnrollmentJwtSigner } from './pki/enrollment-jwt.js';
import type { Pki } from './pki/pki.js';
import type { Validators } from './server/validation.js';
import type { Row } from './store/repository.js';
import type { Store } from './store/store.js';

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
export type Presenter = (rows: Row[], services: Services) => Record<string, unknown>[];

/** Everything handlers use, wired once at start. */
export interface Services {
  store: Store;
  sessions: ApiSessions;
  /** Bounds the password checks (scrypt) that unauthenticated callers can start. */
  passwordChecks: ConcurrencyLimiter;
  /** Failed password checks per client address and per username (429 with Retry-After), and per identity. */
  loginThrottle: LoginThrottle;
  validators: Validators;
  pki: Pki;
  enrollmentSigner: EnrollmentJwtSigner;
  config: ControllerConfig;
  clock: () => Date;
  log: (line: string) => void;
  accessLog?: (line: string) => void;
  present(def: ResourceDef, rows: Row[]): Record<string, unknown>[];
}
