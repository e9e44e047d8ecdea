import type { NetOptions } from '../client/http.js';
import type { ApiClient } from '../client/types.js';
import type { IO } from '../console/io.js';
import type { Prompter } from '../console/prompter.js';

export type { Prompter } from '../console/prompter.js';

/** Flags every command accepts (declared once on the root command). */
export interface GlobalOptions {
  profile?: string;
  output?: string;
  noInput?: boolean;
  noColor?: boolean;
  debug?: boolean;
  /** --timeout: how long each controller call may take (the client's default otherwise). */
  timeoutMs?: number;
  /** --verbose: each request and its timing on stderr. */
  verbose?: boolean;
}

/**
 * What a command may use. Collaborators are lazy: `--help`, completion and usage errors never read the profile,
 * open a socket or import heavy modules; only a command's action calls these getters.
 */
export interface Deps {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** Global flags, read when an action runs (they are parsed by then). */
  globals(): GlobalOptions;
  /** An authenticated client for the selected profile (flag, env, then profile precedence). */
  api(): Promise<ApiClient>;
  /** The session manager: profiles, login, logout. */
  sessions(): Promise<import('../client/session-manager.js').SessionManager>;
  prompter(): Promise<Prompter>;
  /**
   * How a command that makes a client of its own (enroll, a certificate login) reaches the network: --timeout,
   * --verbose, and the run's connection pools.
   */
  net(): NetOptions;
  clock(): Date;
}
