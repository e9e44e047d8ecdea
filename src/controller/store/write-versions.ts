import type { Driver } from './driver.js';

const TABLE = '"ctl_write_versions"';
const FUNCTION = 'ctl_bump_write_version';
/** A trigger's name, the same on every table. A change of what the triggers do takes a new name. */
const TRIGGER = 'ctl_write_version';

/**
 * The resources something in memory is kept from (the API session cache, keptUntilWritten's facts, the external
 * signers' key sets): only their writes are versioned. A version row is locked by a write until its transaction
 * ends, so every resource versioned makes its writers on all controllers take turns: posture reports, login
 * attempts and the like are not. A cache kept of another resource must add it here.
 */
export const KEPT_RESOURCES: ReadonlySet<string> = new Set([
  'identity',
  'api-session',
  'authenticator',
  'auth-policy',
  'mfa',
  'external-jwt-signer',
]);

/** A resource and the table its repository writes. */
export interface VersionedTable {
  resource: string;
  table: string;
}

/**
 * Makes every write of a kept resource's table bump that resource's row in `ctl_write_versions` (PostgreSQL only),
 * in the write's own transaction: a trigger, so no write can skip it, not even one made outside the repositories
 * or by a cascade. Controllers sharing the database read the rows to learn what the others changed
 * (store/write-version-watch.ts). Run at every start under the migration lock; a table that has its trigger is left
 * alone, so a start takes no lock on the tables other controllers are serving.
 *
 * API sessions bump their row only when one is changed or removed, not when only its activity is recorded nor when
 * one is created: activity is written every few seconds per client, and a new session changes no session that was
 * read before it.
 */
export async function ensureWriteVersions(driver: Driver, tables: readonly VersionedTable[]): Promise<void> {
  await driver.tx(async () => {
    await driver.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} ("resource" text PRIMARY KEY, "version" bigint NOT NULL)`);
    await driver.exec(
      `CREATE OR REPLACE FUNCTION ${FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
        `INSERT INTO ${TABLE} ("resource", "version") VALUES (TG_ARGV[0], 1) ` +
        `ON CONFLICT ("resource") DO UPDATE SET "version" = ${TABLE}."version" + 1; RETURN NULL; END $$`,
    );
    const present = await driver.all<{ relname: string }>(
      'SELECT c."relname" FROM pg_trigger t JOIN pg_class c ON c."oid" = t."tgrelid" WHERE t."tgname" = ?',
      [TRIGGER],
    );
    const triggered = new Set(present.map((row) => row.relname));
    for (const { resource, table } of tables) {
      if (triggered.has(table)) continue;
      for (const sql of triggersOf(resource, table)) await driver.exec(sql);
    }
  });
}

function triggersOf(resource: string, table: string): string[] {
  const bump = `EXECUTE FUNCTION ${FUNCTION}('${resource.replace(/'/g, "''")}')`;
  const on = `"${table}"`;
  if (resource !== 'api-session') {
    return [
      `CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${on} FOR EACH STATEMENT ${bump}`,
    ];
  }
  const beyondActivity = `(to_jsonb(OLD) - 'lastActivityAt') IS DISTINCT FROM (to_jsonb(NEW) - 'lastActivityAt')`;
  return [
    `CREATE TRIGGER ${TRIGGER} AFTER UPDATE ON ${on} FOR EACH ROW WHEN (${beyondActivity}) ${bump}`,
    `CREATE TRIGGER ${TRIGGER}_delete AFTER DELETE ON ${on} FOR EACH ROW ${bump}`,
  ];
}

/** Every resource's version as last committed: a resource never written has none. */
export async function readWriteVersions(driver: Driver): Promise<Map<string, string>> {
  const rows = await driver.all<{ resource: string; version: string }>(
    `SELECT "resource", "version"::text AS "version" FROM ${TABLE}`,
  );
  return new Map(rows.map((row) => [row.resource, row.version]));
}
