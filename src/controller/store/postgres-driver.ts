import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { postgresDialect } from './dialects/postgres.js';
import { type Driver, LruCache, type RunResult, StoreUnavailableError, StoreUrlError } from './driver.js';

/** Connections of the pool; a handful keeps a 2-core machine busy without queueing in PostgreSQL. */
const POOL_SIZE = 8;

/**
 * How many distinct statements are prepared by name, so that each connection parses and plans them once instead of
 * on every call. The store's own statements are a few hundred; past the cap (filter shapes a client invents) a
 * statement goes unnamed, so what the server keeps per connection stays bounded.
 */
const NAMED_STATEMENTS = 1000;

/** Advisory lock keys (arbitrary constants of this program): migrations, and the one controller per database. */
export const MIGRATION_LOCK = 0x63746c01;
export const CONTROLLER_LOCK = 0x63746c02;

/**
 * PostgreSQL through `pg`: a pool for statements outside transactions, one pooled connection per transaction
 * (found through the async call chain, so repositories need not pass it around). Placeholders are written `?`
 * by the store and numbered here; the numbered text is cached (bounded) per statement text, and the first
 * NAMED_STATEMENTS of them are prepared by name.
 */
export class PostgresDriver implements Driver {
  readonly dialect = postgresDialect;
  private readonly client = new AsyncLocalStorage<PoolClient>();
  /** Transactions open now; the storage is switched off when none is (see SqliteDriver.tx). */
  private openTransactions = 0;
  private readonly numbered = new LruCache<string, string>(1024);
  /** Statement names by numbered text; never evicted (a name must keep meaning its text on every connection). */
  private readonly names = new Map<string, string>();
  /** Held for the life of the process: the one controller allowed on this database. */
  private ownerLock: PoolClient | undefined;

  private constructor(
    private readonly pool: Pool,
    private readonly namedStatements: number,
  ) {}

  static async open(url: string, opts: { namedStatements?: number } = {}): Promise<PostgresDriver> {
    const { default: pg } = await import('pg');
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new StoreUrlError(`'${redact(url)}' is not a store URL: expected postgres://user[:password]@host[:port]/database`);
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new StoreUrlError(`unsupported store '${parsed.protocol}': expected postgres://user[:password]@host[:port]/database`);
    }
    // Counts and BIGINT columns come back as numbers, as SQLite gives them (all of ours fit in 2^53).
    const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) };
    const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE, connectionTimeoutMillis: 10_000, types });
    // An idle connection that fails (server restart) must not crash the process: the next query reconnects.
    pool.on('error', () => {});
    const driver = new PostgresDriver(pool, opts.namedStatements ?? NAMED_STATEMENTS);
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => {});
      throw new StoreUnavailableError(`cannot connect to the store ${redact(url)}: ${describePgError(err)}`);
    }
    return driver;
  }

  /**
   * Takes the database for this process, or refuses: several controllers on one database come later (their
   * caches would need invalidating), so for now a second one is told clearly and stops.
   */
  async claim(): Promise<void> {
    const client = await this.pool.connect();
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [CONTROLLER_LOCK]);
    if (!rows[0].ok) {
      client.release();
      throw new StoreUnavailableError('another controller is already using this database (one controller per database for now)');
    }
    this.ownerLock = client;
  }

  /** Runs `fn` holding an advisory lock, on a connection of its own (migrations run one at a time). */
  async withLock<T>(key: number, fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [key]);
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => {});
      client.release();
    }
  }

  private text(sql: string): string {
    let text = this.numbered.get(sql);
    if (text === undefined) {
      let n = 0;
      text = sql.replace(/\?/g, () => `$${++n}`);
      this.numbered.set(sql, text);
    }
    return text;
  }

  private nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.namedStatements) {
      name = `ctl_${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }

  private async query<T>(sql: string, params: readonly unknown[]): Promise<{ rows: T[]; rowCount: number | null }> {
    const runner = this.client.getStore() ?? this.pool;
    const text = this.text(sql);
    return runner.query({ name: this.nameOf(text), text, values: params as unknown[] }) as unknown as Promise<{ rows: T[]; rowCount: number | null }>;
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    const runner = this.client.getStore() ?? this.pool;
    await runner.query(sql);
  }

  async tx<T>(fn: () => Promise<T>): Promise<T> {
    if (this.client.getStore()) return fn();
    const client = await this.pool.connect();
    this.openTransactions++;
    try {
      await client.query('BEGIN');
      const result = await this.client.run(client, fn);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
      if (--this.openTransactions === 0) this.client.disable();
    }
  }

  async close(): Promise<void> {
    this.ownerLock?.release();
    this.ownerLock = undefined;
    await this.pool.end();
  }
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+):[^@/]*@/, '$1:***@');
}

function describePgError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (is PostgreSQL running on that host and port?)';
    case 'ENOTFOUND':
      return 'unknown host';
    case '28P01':
    case '28000':
      return 'authentication failed (check the user and password)';
    case '3D000':
      return 'the database does not exist (create it first, e.g. createdb)';
    default:
      return e.message ?? String(err);
  }
}
