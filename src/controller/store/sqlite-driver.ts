import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, openSync } from 'node:fs';
import type { Database, Statement } from 'better-sqlite3';
import { sqliteDialect } from './dialects/sqlite.js';
import {
  type Driver,
  LruCache,
  type RunResult,
  STATEMENT_CACHE_SIZE,
  STATEMENT_CACHE_SQL_CHARS,
  StoreUnavailableError,
} from './driver.js';
import { CombinedStatements } from './combined-statements.js';
import { type Fragment, quote } from './fragment.js';
import { type RowMaker, rowMaker } from './row-maker.js';
import { refuseDamagedDatabase } from './sqlite-file.js';
import { openSqlite } from './sqlite-native.js';

/** How many uncached statement shapes are remembered, so that the second use of one caches it. */
const SEEN_SHAPES = 4096;

/**
 * A prepared statement, and for one that reads what makes objects of its rows: reads get each row as an array (raw
 * mode) and make its object here. better-sqlite3 names every column of every row through V8's API: reading an identity
 * (21 columns) by id took 11.6 us that way and 7.7 us this way (docs/performance.md).
 */
interface Prepared {
  stmt: Statement<unknown[]>;
  /** Makes a row's values an object keyed by column name. */
  named?: RowMaker;
}

/**
 * Statements read as one (`allTogether`): each one's rows as a JSON array of arrays, one column of a single row. Raw
 * rows cost better-sqlite3 a V8 value per column and SQLite a statement each; the identity's row and its read model
 * took 7.6 us as four statements and 4.8 us so, JSON.parse included (docs/performance.md).
 */
interface Combined {
  stmt: Statement<unknown[]>;
  /** Makes a row of each statement an object. */
  named: RowMaker[];
}

/**
 * SQLite through better-sqlite3: WAL with synchronous=FULL, so a write is on disk before the response and
 * nothing acknowledged is lost if the process is killed. better-sqlite3 is synchronous; this driver makes it the
 * store's asynchronous shape and serialises transactions: while one is open (its function may await between
 * statements), statements from outside it wait, so they never see its uncommitted writes.
 */
export class SqliteDriver implements Driver {
  readonly dialect = sqliteDialect;
  private readonly statements: LruCache<string, Prepared>;
  /** Statements read together (CombinedStatements). */
  private readonly combined: CombinedStatements<Combined>;
  /** Digests of the statements prepared once and not cached (yet): see statement(). */
  private readonly seen = new LruCache<string, true>(SEEN_SHAPES);
  private readonly inTx = new AsyncLocalStorage<true>();
  private busy: Promise<void> | undefined;
  /** What waits for the open transaction to commit (one at a time here). */
  private committed = new Map<string, () => void>();
  statementsRun = 0;
  /** The data directory's lock keeps any other controller out of the file. */
  readonly soleWriterEpoch = 0;

  /** One process per database file (the data directory's lock): it runs the background work. */
  async leadsBackgroundWork(): Promise<boolean> {
    return true;
  }

  private constructor(
    private readonly db: Database,
    cacheSize: number,
  ) {
    // Bounded by count and by the SQL text they hold: see STATEMENT_CACHE_SQL_CHARS.
    const limit = { maxWeight: STATEMENT_CACHE_SQL_CHARS, weigh: (sql: string) => sql.length };
    this.statements = new LruCache(cacheSize, undefined, limit);
    this.combined = new CombinedStatements(cacheSize, STATEMENT_CACHE_SQL_CHARS, (c) => c.stmt.source.length);
  }

  static open(file: string, opts: { cacheSize?: number } = {}): SqliteDriver {
    let db: Database;
    try {
      // Password hashes live here: owner-only, and SQLite gives its -wal and -shm files the same mode.
      if (file !== ':memory:') {
        refuseDamagedDatabase(file);
        closeSync(openSync(file, 'a', 0o600));
        chmodSync(file, 0o600);
      }
      db = openSqlite(file);
    } catch (err) {
      if (err instanceof StoreUnavailableError || (err as Error).name === 'SqliteNativeError') throw err;
      throw new StoreUnavailableError(`cannot open the database ${file}: ${(err as Error).message}`);
    }
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      // Fails fast on a file that is not a database or is damaged, before anything else is attempted.
      db.pragma('schema_version');
    } catch (err) {
      db.close();
      throw new StoreUnavailableError(`cannot use the database ${file}: ${(err as Error).message}`);
    }
    return new SqliteDriver(db, opts.cacheSize ?? STATEMENT_CACHE_SIZE);
  }

  /** How many statements are cached (bounded by the LRU). */
  get cachedStatements(): number {
    return this.statements.size;
  }

  /** How much SQL text the cached statements hold (bounded by STATEMENT_CACHE_SQL_CHARS). */
  get cachedSqlChars(): number {
    return this.statements.totalWeight;
  }

  /**
   * A cached statement, or a new one. A shape met for the first time may be a client's one-off filter: it runs
   * uncached, so that its statement dies young and SQLite's memory for it is freed by the next minor GC (one that
   * lived in the cache awhile is freed only by a full one, which V8, unaware of that memory, runs rarely). Met
   * again, it is cached.
   */
  private statement(sql: string): Prepared {
    this.statementsRun++;
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = { stmt: this.db.prepare<unknown[]>(sql) };
      const shape = createHash('sha256').update(sql).digest('base64');
      if (this.seen.get(shape)) this.statements.set(sql, prepared);
      else this.seen.set(shape, true);
    }
    return prepared;
  }

  /** A statement that reads, in raw mode, and what names its rows' columns. */
  private reader(sql: string): Required<Prepared> {
    const prepared = this.statement(sql);
    if (!prepared.named) {
      prepared.named = rowMaker(prepared.stmt.columns().map((c) => c.name));
      prepared.stmt.raw(true);
    }
    return prepared as Required<Prepared>;
  }

  /** The rows a reading statement answers, as objects keyed by column name. */
  private rows(sql: string, params: readonly unknown[]): Record<string, unknown>[] {
    const { stmt, named } = this.reader(sql);
    return (stmt.all(...params) as unknown[][]).map(named);
  }

  private async idle(): Promise<void> {
    while (this.busy && !this.inTx.getStore()) await this.busy;
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    if (this.busy) await this.idle();
    return this.rows(sql, params) as T[];
  }

  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    if (this.busy) await this.idle();
    const { stmt, named } = this.reader(sql);
    const values = stmt.get(...params) as unknown[] | undefined;
    return values && (named(values) as T);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<RunResult> {
    if (this.busy) await this.idle();
    return { changes: this.statement(sql).stmt.run(...params).changes };
  }

  async allTogether(statements: readonly Fragment[]): Promise<Record<string, unknown>[][]> {
    if (this.busy) await this.idle();
    if (statements.length === 1) return [this.rows(statements[0].sql, statements[0].params)];
    const { stmt, named } = this.together(statements);
    const params: unknown[] = [];
    for (const s of statements) for (const p of s.params) params.push(p);
    const texts = stmt.get(...params) as string[];
    // A lookup that found nothing (often most of a read model's) is not worth a call of the parser.
    return texts.map((text, i) => (text === '[]' ? [] : (JSON.parse(text) as unknown[][]).map(named[i])));
  }

  /** The statement reading these together, made at their first read. */
  private together(statements: readonly Fragment[]): Combined {
    this.statementsRun++;
    return this.combined.get(statements, () => this.combine(statements));
  }

  /**
   * `SELECT (SELECT json_group_array(json_array(q."c1", ...)) FROM (<statement>) q), ...`: the subquery's ORDER BY
   * orders the array, and JSON holds every value the store reads (text, integers, null: it keeps no BLOBs). A column
   * is named by its name there, so two of one name would read the first twice: refused.
   */
  private combine(statements: readonly Fragment[]): Combined {
    const columns = statements.map((s) =>
      this.db
        .prepare(s.sql)
        .columns()
        .map((c) => c.name),
    );
    const reads = statements.map((s, i) => {
      if (new Set(columns[i]).size !== columns[i].length) throw new Error(`columns named twice: ${s.sql}`);
      const values = columns[i].map((c) => `q.${quote(c)}`).join(', ');
      return `(SELECT json_group_array(json_array(${values})) FROM (${s.sql}) q)`;
    });
    const stmt = this.db.prepare<unknown[]>(`SELECT ${reads.join(', ')}`).raw(true);
    return { stmt, named: columns.map(rowMaker) };
  }

  /** DDL of a migration: several statements, not cached. */
  async exec(sql: string): Promise<void> {
    if (this.busy) await this.idle();
    this.statementsRun++;
    this.db.exec(sql);
  }

  async tx<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inTx.getStore()) return fn();
    // Checked again as this one resumes, not in idle(): every waiter wakes when the running one ends, and the first
    // to resume must take the turn before the others find the driver free too.
    while (this.busy) await this.busy;
    let release!: () => void;
    this.busy = new Promise((resolve) => (release = resolve));
    try {
      this.control('BEGIN IMMEDIATE');
      const result = await this.inTx.run(true, fn);
      this.control('COMMIT');
      for (const committed of this.committed.values()) committed();
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.control('ROLLBACK');
      throw err;
    } finally {
      // On Node 20 an enabled AsyncLocalStorage taxes every promise in the process (a promise hook); transactions
      // here run one at a time, so the storage is switched off between them and reads pay nothing.
      this.inTx.disable();
      this.committed.clear();
      this.busy = undefined;
      release();
    }
  }

  private control(statement: 'BEGIN IMMEDIATE' | 'COMMIT' | 'ROLLBACK'): void {
    this.statementsRun++;
    this.db.exec(statement);
  }

  afterCommit(key: string, fn: () => void): boolean {
    if (!this.inTx.getStore()) return false;
    this.committed.set(key, fn);
    return true;
  }

  /** Transactions here already run one at a time: nothing else can hold a lock. */
  async hold(): Promise<void> {}

  async close(): Promise<void> {
    await this.idle();
    this.db.close();
  }
}
