import type { ClientRateLimit } from './client-state.js';
import type { PasswordCost } from './auth/password.js';
import type { LoginThrottleOptions } from './auth/throttle.js';
import type { ServerLimits } from './server/listener.js';
import type { Migration } from './store/schema-diff.js';

/** The public face of the embedded controller, used by `ctl controller start`, `ctl quickstart` and the tests. */
export interface ControllerOptions {
  /** Directory holding the database and PKI; created 0700 on first start. */
  dataDir: string;
  /**
   * Where the root and intermediate CA keys and the server certificate live (default `<dataDir>/pki`): keep the
   * root CA key away from the database and its backups.
   */
  pkiDir?: string;
  /**
   * A file holding the secret that seals the CA keys kept in the database (owner-only, at least 32 bytes). With
   * it, the network's PKI lives in the database and every controller given the same file shares it; without it,
   * the PKI lives in `pkiDir` (refused when the database holds a shared one).
   */
  pkiKeyFile?: string;
  /**
   * Serve a PostgreSQL database together with other controllers started with this too (and the same `pkiKeyFile`);
   * docs/controller.md says what they share and how.
   */
  sharedDatabase?: boolean;
  /** TCP port; 0 picks a free one (tests). */
  port: number;
  /** Address to bind; default 127.0.0.1. Certificates cover it, localhost and the machine's host name. */
  host?: string;
  /**
   * Addresses (`HOST[:PORT]`) clients reach the controller on: the first is its public URL (its API addresses in
   * /controllers, the `iss` of the JWTs it signs; the port defaults to the listening one), and the server
   * certificate covers every one's host. Default: the listening address.
   */
  advertise?: string[];
  /** Default admin created on first start only. */
  adminUser?: string;
  /** Password of the default admin; generated (and given to `announceAdminPassword`) when absent. */
  adminPassword?: string;
  /** Origins (scheme://host[:port]) allowed CORS with credentials; any other origin gets CORS without them. */
  corsOrigins?: string[];
  /** API session inactivity timeout in minutes (default 30, minimum 1). */
  sessionTimeoutMinutes?: number;
  /** Where lifecycle messages and unexpected (500) errors go; default: nowhere. */
  log?: (line: string) => void;
  /** When set, one line per request: method, path (no query string), status, duration, request id. */
  accessLog?: (line: string) => void;
  /** A directory of static files (a built web console such as OpenZiti's ZAC) served under `/zac/`. */
  consoleDir?: string;
  /**
   * `postgres://user@host:port/db` to keep the data in PostgreSQL, or the path of a SQLite file; default: SQLite
   * `ctl.db` in the data directory.
   */
  storeUrl?: string;
  /** Cost of password hashing (tests use a cheap one); default: the production cost. */
  passwordCost?: PasswordCost;
  /**
   * Called with a generated admin password before it is stored, so that a start which fails afterwards never
   * leaves a password nobody was shown.
   */
  announceAdminPassword?: (password: string) => void;
  /** Overrides of the listener's timeouts and per-address connection cap (docs/security.md); tests shorten them. */
  serverLimits?: Partial<ServerLimits>;
  /**
   * On close, how long requests in flight may take to be answered before their connections are cut (default
   * DEFAULT_SHUTDOWN_GRACE_MS): a client whose write was committed learns it.
   */
  shutdownGraceMs?: number;
  /** Overrides the failed-login token buckets (docs/security.md); tests make them small. */
  loginThrottle?: LoginThrottleOptions;
  /** The client API's per-client request budget (default: src/controller/client-state.ts); tests make it small. */
  clientRateLimit?: ClientRateLimit;
  /**
   * The schema migrations this build knows (default: all of them); an upgrade test starts a controller with one
   * more, as the next release would be.
   */
  migrations?: readonly Migration[];
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface RunningController {
  /** Where it listens, e.g. https://127.0.0.1:1280 */
  url: string;
  /** Where clients are told to reach it: the first `advertise` address, else `url`. */
  publicUrl: string;
  port: number;
  /** Root + intermediate CA, what clients must trust. */
  caBundlePem: string;
  adminUser: string;
  close(): Promise<void>;
}
