import { CATALOGUE, resource, type ResourceDef } from '../../resources/index.js';
import { type Driver, StoreUrlError, type WriteLock } from './driver.js';
import { Integrity, type RepairWrites } from './integrity.js';
import { LoginAttempts } from './login-attempts.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { PostgresDriver, MIGRATION_LOCK } from './postgres-driver.js';
import { type Lookup, type Referrer, Repository, type WriteEvent } from './repository.js';
import { RoleIndex } from './role-index.js';
import type { Migration } from './schema-diff.js';
import { declaredSchema } from './schema-model.js';
import { PostureReportRows } from './posture-reports.js';
import { ServiceUpdateStampRows } from './service-update-stamps.js';
import { SessionActivityRows } from './session-activity-rows.js';
import { SqliteDriver } from './sqlite-driver.js';
import { readWriteVersions, WriteVersionWatch } from './write-version-watch.js';

/** What `Store.readTogether` answers: the decoded rows of each lookup, in order. */
type ReadTogether<T extends readonly Lookup<unknown>[]> = {
  -readonly [K in keyof T]: T[K] extends Lookup<infer R> ? R : never;
};

/** Where the data lives: a SQLite file (or `:memory:`), or a PostgreSQL URL. */
export type StoreLocation = { sqlite: string } | { postgres: string };

/** Reads `--store`/`CTL_STORE_URL`: a postgres:// URL, or a path (sqlite:// prefix optional) to a SQLite file. */
export function parseStoreLocation(value: string): StoreLocation {
  if (/^postgres(ql)?:/i.test(value)) return { postgres: value };
  if (/^sqlite:/i.test(value)) return { sqlite: value.replace(/^sqlite:(\/\/)?/i, '') };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme)
    throw new StoreUrlError(
      `unsupported store '${scheme[1]}://': expected postgres://user@host:port/db, or the path of a SQLite file`,
    );
  return { sqlite: value };
}

export interface StoreOptions {
  now?: () => string;
  /** SQLite's prepared statement cache (entries). */
  cacheSize?: number;
  log?: (line: string) => void;
  /** PostgreSQL: serve it together with other controllers that opted in too (experimental). */
  sharedDatabase?: boolean;
  /**
   * false: the caller writes the built-in rows (the controller does, through its write path, at boot). Default:
   * written here, for what opens a store without a controller (tools, tests, benchmarks).
   */
  builtIns?: boolean;
  /** The migrations this build knows (default: all of `migrations/`); an upgrade test gives one more. */
  migrations?: readonly Migration[];
}

/** The rows the catalogue declares built in, each with its resource: present on every database. */
export function builtInRows(): Array<{ def: ResourceDef; row: Record<string, unknown> & { id: string } }> {
  return CATALOGUE.flatMap((def) =>
    (def.builtIns ?? []).map((row) => ({ def, row: row as Record<string, unknown> & { id: string } })),
  );
}

/** Every field in the catalogue that points at another resource, grouped by the resource pointed at. */
function referrersOf(catalogue: readonly ResourceDef[]): Map<string, Referrer[]> {
  const byTarget = new Map<string, Referrer[]>();
  for (const def of catalogue) {
    for (const [field, f] of Object.entries(def.fields)) {
      const type = f.type;
      if (type.kind !== 'ref' && type.kind !== 'refList' && type.kind !== 'roles') continue;
      if (f.virtual || f.computed) continue;
      const onDelete = type.kind === 'roles' ? 'clear' : (type.onDelete ?? 'restrict');
      const list = byTarget.get(type.resource) ?? [];
      list.push({ def, field, kind: type.kind, onDelete });
      byTarget.set(type.resource, list);
    }
  }
  return byTarget;
}

/** One access index per policy role set in the catalogue. */
function roleIndexesOf(driver: Driver, catalogue: readonly ResourceDef[]): RoleIndex[] {
  return catalogue.flatMap((def) =>
    Object.entries(def.fields)
      .filter(([, f]) => f.type.kind === 'roles')
      .map(([field, f]) => new RoleIndex(driver, def, field, resource((f.type as { resource: string }).resource))),
  );
}

/**
 * The controller's storage: one repository per catalogue resource over one database, SQLite or PostgreSQL, with
 * the same behaviour on both. Nothing outside `store/` writes SQL: handlers use repositories and `tx`.
 */
export class Store {
  private readonly repos = new Map<string, Repository>();
  private readonly roleIndexes: Map<string, RoleIndex>;
  private readonly listeners: Array<(event: WriteEvent) => void> = [];
  /** Failed logins counted in the database (controllers sharing one). */
  readonly loginAttempts: LoginAttempts;
  /** Service update stamps kept in the database (controllers sharing one). */
  readonly serviceUpdateStamps: ServiceUpdateStampRows;
  readonly postureReports: PostureReportRows;
  /** API sessions' last activity, many sessions per statement. */
  readonly sessionActivity: SessionActivityRows;
  /** Controllers sharing the database: what tells this one of the others' writes (store/write-version-watch.ts). */
  private readonly watch: WriteVersionWatch | undefined;

  private constructor(
    private readonly driver: Driver,
    shared = false,
  ) {
    this.watch = shared
      ? new WriteVersionWatch(
          () => readWriteVersions(driver),
          (resource) => this.tell({ resource, op: 'update' }),
        )
      : undefined;
    this.loginAttempts = new LoginAttempts(driver);
    this.serviceUpdateStamps = new ServiceUpdateStampRows(driver);
    this.postureReports = new PostureReportRows(driver);
    this.sessionActivity = new SessionActivityRows(driver);
    const referrers = referrersOf(CATALOGUE);
    const uniqueIndexes: Record<string, string[]> = {};
    for (const index of Object.values(declaredSchema(CATALOGUE, resource).indexes)) {
      if (index.unique) uniqueIndexes[index.name] = index.columns;
    }
    const roleIndexes = roleIndexesOf(driver, CATALOGUE);
    for (const def of CATALOGUE) {
      const indexes = {
        own: roleIndexes.filter((i) => i.policy.name === def.name),
        selectedBy: roleIndexes.filter((i) => i.target.name === def.name),
      };
      this.repos.set(
        def.name,
        new Repository(driver, def, resource, referrers.get(def.name) ?? [], uniqueIndexes, indexes, (event) =>
          this.emit(event),
        ),
      );
    }
    this.roleIndexes = new Map(roleIndexes.map((i) => [`${i.policy.name}.${i.field}`, i]));
  }

  /**
   * Tells `listener` of every write a repository makes, as it is made, and of a write inside a transaction again
   * once the transaction has committed: where reads do not wait for open transactions (PostgreSQL), a read made
   * between the write and the commit saw the state before the write, and a cache that kept it drops it then.
   */
  onWrite(listener: (event: WriteEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Whether a read outside a transaction waits until an open one ends (SQLite: the driver serialises them). Then a
   * cache dropped at each write can never keep a state read before a commit; on PostgreSQL a read sees the last
   * committed state while a transaction is open, so such a cache would need to be dropped at commit as well.
   */
  get readsWaitForWrites(): boolean {
    return this.driver.dialect.name === 'sqlite';
  }

  /** Drops every cache built on reads: after writes made without a repository (the integrity fix). */
  changedOutsideRepositories(): void {
    this.emit({ resource: '*', op: 'update' });
  }

  private emit(event: WriteEvent): void {
    this.tell(event);
    // Once per kind of write and transaction: listeners only drop what such a write may change.
    this.driver.afterCommit(`${event.resource} ${event.op} ${event.fields?.join(',') ?? ''}`, () => this.tell(event));
  }

  private tell(event: WriteEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Whether this process is the only one writing to the database, and since when (Driver.soleWriterEpoch): a write
   * that must be ordered against other processes' (a used MFA code) takes a lock only when it is not.
   */
  get soleWriterEpoch(): number | undefined {
    return this.driver.soleWriterEpoch;
  }

  /**
   * The stretch within which what a cache keeps of the store stays current as long as it hears of writes (onWrite):
   * a lone controller's, while it is the database's one writer (soleWriterEpoch); controllers sharing a database
   * hear of each other's writes through catchUp, called before a request uses anything kept.
   */
  get cacheEpoch(): number | undefined {
    return this.watch ? 0 : this.driver.soleWriterEpoch;
  }

  /**
   * Controllers sharing a database: tells this one's caches of every write another controller committed before
   * the call (store/write-version-watch.ts), one statement. Nothing to do (undefined) for a lone controller.
   */
  catchUp(): Promise<void> | undefined {
    return this.watch?.catchUp();
  }

  /** Inside a transaction: holds `lock` (for `key`) until it ends, once no other transaction holds it (Driver.hold). */
  hold(lock: WriteLock, key?: string): Promise<void> {
    return this.driver.hold(lock, key);
  }

  /** Whether this process runs the database's background work now (Driver.leadsBackgroundWork). */
  leadsBackgroundWork(): Promise<boolean> {
    return this.driver.leadsBackgroundWork();
  }

  /** The access index of a policy's role set, e.g. `roleIndex('service-policy', 'identityRoles')`. */
  roleIndex(policy: string, field: string): RoleIndex {
    const index = this.roleIndexes.get(`${policy}.${field}`);
    if (!index) throw new Error(`${policy}.${field} is not a role set`);
    return index;
  }

  /**
   * Opens the database, brings its schema to the last migration, and makes sure the built-in rows exist. `log` hears
   * of what happens to the database later (PostgreSQL: a lost connection, the controller lock taken again).
   */
  static async open(location: StoreLocation, opts: StoreOptions = {}): Promise<Store> {
    const now = opts.now ?? (() => new Date().toISOString());
    let driver: Driver;
    if ('postgres' in location) {
      const pg = await PostgresDriver.open(location.postgres, { log: opts.log });
      try {
        await pg.claim(opts.sharedDatabase ? 'shared' : 'alone');
        await pg.withLock(MIGRATION_LOCK, () => migrate(pg, opts.migrations ?? MIGRATIONS, now));
        const trigram = `SELECT to_regclass('"identities_name_trgm"')::text AS name`;
        if (!(await pg.get<{ name: string | null }>(trigram))?.name) {
          opts.log?.(
            "store: no trigram index on names (PostgreSQL's pg_trgm extension was not available to this user " +
              'when the schema was made): `contains` filters read every row; docs/controller.md, "Storage", ' +
              'says how to add them',
          );
        }
      } catch (err) {
        await pg.close();
        throw err;
      }
      driver = pg;
    } else {
      const sqlite = SqliteDriver.open(location.sqlite, { cacheSize: opts.cacheSize });
      await migrate(sqlite, opts.migrations ?? MIGRATIONS, now).catch(async (err: unknown) => {
        await sqlite.close();
        throw err;
      });
      driver = sqlite;
    }
    const store = new Store(driver, opts.sharedDatabase === true && 'postgres' in location);
    if (opts.builtIns !== false) await store.ensureBuiltIns(now());
    return store;
  }

  repo(name: string): Repository {
    const repo = this.repos.get(name);
    if (!repo) throw new Error(`no repository for resource '${name}'`);
    return repo;
  }

  repoFor(def: ResourceDef): Repository {
    return this.repo(def.name);
  }

  /**
   * Lookups that do not depend on each other, read in one round trip (`Driver.allTogether`), each decoded as its
   * repository's own read would be: what a read model gathers from several tables costs one statement.
   */
  async readTogether<T extends readonly Lookup<unknown>[]>(lookups: T): Promise<ReadTogether<T>> {
    const rows = await this.driver.allTogether(lookups);
    return lookups.map((lookup, i) => lookup.decode(rows[i])) as ReadTogether<T>;
  }

  /** Statements sent to the database so far (Driver.statementsRun): requests are counted in them. */
  get statementsRun(): number {
    return this.driver.statementsRun;
  }

  /** Runs fn in one transaction: all of it is written, or none. Repositories used inside join it. */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.driver.tx(fn);
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /** Consistency checks, repairs (through `writes`, the model's write path) and snapshots (integrity.ts). */
  integrity(writes: RepairWrites): Integrity {
    return new Integrity(
      this.driver,
      CATALOGUE,
      resource,
      [...this.roleIndexes.values()],
      writes,
      (name, id) => this.repo(name).find(id),
      () => this.changedOutsideRepositories(),
    );
  }

  /**
   * Runs `fn` while no other controller on the database runs its own: on PostgreSQL under the advisory lock that
   * migrations take, so that what a first start writes (built-in rows, the default admin) is written once even
   * when controllers start at the same moment. On SQLite, whose transactions take the write lock as they begin,
   * what `fn` checks and writes in one transaction is seen by no other writer half-done.
   */
  oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
    return this.driver instanceof PostgresDriver ? this.driver.withLock(MIGRATION_LOCK, fn) : fn();
  }

  private async ensureBuiltIns(now: string): Promise<void> {
    await this.tx(async () => {
      for (const { def, row } of builtInRows()) await this.repoFor(def).ensure(row, now);
    });
  }
}
