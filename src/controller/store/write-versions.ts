/** The table of every kept resource's version (PostgreSQL only), made with the first table's triggers. */
export const WRITE_VERSIONS_TABLE = 'ctl_write_versions';

/** Which writes of a resource's table bump its version: by default every statement. */
export interface VersionedWrites {
  /**
   * Only a row updated beyond these columns, or deleted, bumps it, row by row: a row inserted does not either.
   */
  ignoring?: string[];
}

/** A resource's versioned writes as the declared schema holds them (IndexModel `writeVersion`). */
export interface WriteVersionModel extends VersionedWrites {
  resource: string;
}

/**
 * The resources something in memory is kept from (the API session cache, keptUntilWritten's facts, the external
 * signers' key sets): only their writes are versioned. A version row is locked by a write until its transaction
 * ends, so every resource versioned makes its writers on all controllers take turns: posture reports, login
 * attempts and the like are not. A cache kept of another resource must add it here, then record the migration
 * (`npm run schema:migration`) that makes its triggers.
 *
 * API sessions bump their row only when one is changed or removed, not when only its activity is recorded nor when
 * one is created: activity is written every few seconds per client, and a new session changes no session that was
 * read before it.
 */
export const KEPT_RESOURCES: ReadonlyMap<string, VersionedWrites> = new Map<string, VersionedWrites>([
  ['identity', {}],
  ['api-session', { ignoring: ['lastActivityAt'] }],
  ['authenticator', {}],
  ['auth-policy', {}],
  ['mfa', {}],
  ['external-jwt-signer', {}],
]);
