import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, Pool, PoolClient } from 'pg';
import { postgresDialect } from './dialects/postgres.js';
import {
  type Driver,
  LruCache,
  type RunResult,
  STATEMENT_CACHE_SIZE,
  STATEMENT_CACHE_SQL_CHARS,
  StoreUnavailableError,
  StoreUrlError,
  type WriteLock,
} from './driver.js';
import { CombinedStatements } from './combined-statements.js';
import { type Fragment, quote } from './fragment.js';
import { type KeyedRow, KeyedReads, type KeyedStatement } from './keyed-reads.js';
import { connectionEnded, HeldConnections } from './postgres-connections.js';
import type { RowShape, Statement, StatementResult, TypeParsers } from './postgres-statement.js';
import { rowMaker } from './row-maker.js';

/** Connections of the pool, for transactions; a handful keeps a 2-core machine busy without queueing in PostgreSQL. */
const POOL_SIZE = 8;
/** Connections held for statements outside a transaction, each with several in flight (HeldConnections). */
export const HELD_CONNECTIONS = 4;

/**
 * How many distinct statements are prepared by name, so that each connection parses and plans them once instead of
 * on every call. The store's own statements are a few hundred; past the cap (filter shapes a client invents) a
 * statement goes unnamed, so what the server keeps per connection stays bounded.
 */
const NAMED_STATEMENTS = 1000;

/**
 * And how much SQL text they may hold together, as the numbered texts kept may: a statement's text grows with its
 * filter (a list's page and its count are each kilobytes for a long one, and a filter can make hundreds of KB), so a
 * count alone let a client's distinct long filters keep tens or hundreds of MB in this process, twice
 * (bench/filter-memory.ts). The store's own statements, named first as the controller serves, take a few hundred KB.
 */
const STATEMENT_TEXT_CHARS = 2 * 1024 * 1024;

/** Advisory lock keys (arbitrary constants of this program): migrations, and the one controller per database. */
export const MIGRATION_LOCK = 0x63746c01;
export const CONTROLLER_LOCK = 0x63746c02;
/** Held by the one controller of a shared database that runs the background work (leadsBackgroundWork). */
const BACKGROUND_LOCK = 0x63746c04;
/** Transaction-level advisory locks behind `hold`. */
const WRITE_LOCKS: Record<WriteLock, number> = {
  'access-index': 0x63746c03,
  'mfa-codes': 0x63746c05,
  'posture-reports': 0x63746c06,
};

/**
 * How many times a transaction is run when PostgreSQL aborts it for a deadlock (40P01) or a serialisation failure
 * (40001); past that the error reaches the client as 503 STORE_UNAVAILABLE, to be retried later.
 */
const TX_ATTEMPTS = 5;
const RETRIED = new Set(['40001', '40P01']);

/** Waits between attempts to take the controller lock again after its connection was lost (doubling, capped). */
const RECLAIM_FIRST_MS = 200;
const RECLAIM_MAX_MS = 2000;

export interface PostgresOptions {
  /** How many distinct statements are prepared by name (NAMED_STATEMENTS). */
  namedStatements?: number;
  /** How much of their text they may hold together (STATEMENT_TEXT_CHARS). */
  namedStatementChars?: number;
  /** Hears what happens to the connections later: the controller lock lost, taken again, or taken by another. */
  log?: (line: string) => void;
}

/** The pooled connection a transaction runs on, and what waits for it to commit. */
interface Transaction {
  client: PoolClient;
  committed: Map<string, () => void>;
}

/** Whether this process may write: it holds the controller lock, is taking it again, or lost it to another. */
type Ownership = 'unclaimed' | 'held' | 'reclaiming' | 'taken';

/**
 * How a controller holds the database: alone (the lock taken exclusively), or shared with the other controllers
 * that opted in to serving one database together (the lock taken in shared mode, which the exclusive one excludes).
 */
export type ClaimMode = 'alone' | 'shared';

/**
 * PostgreSQL through `pg`: a few held connections for statements outside transactions (HeldConnections; `exec`'s
 * DDL on the pool), one pooled connection per transaction (found through the async call chain, so repositories
 * need not pass it around). Placeholders are written `?` by the store and numbered here; the numbered text is
 * cached (bounded) per statement text, and the first of them are prepared by name, up to NAMED_STATEMENTS of them and
 * STATEMENT_TEXT_CHARS of their text.
 */
export class PostgresDriver implements Driver {
  readonly dialect = postgresDialect;
  private readonly transaction = new AsyncLocalStorage<Transaction>();
  /** Transactions open now; the storage is switched off when none is (see SqliteDriver.tx). */
  private openTransactions = 0;
  private readonly numbered = new LruCache<string, string>(1024, undefined, {
    maxWeight: STATEMENT_TEXT_CHARS,
    weigh: (sql, text) => sql.length + text.length,
  });
  /** The one statement of statements read together (allTogether), by their texts. */
  private readonly together = new CombinedStatements<string>(
    STATEMENT_CACHE_SIZE,
    STATEMENT_CACHE_SQL_CHARS,
    (sql) => sql.length,
  );
  /**
   * What statements read together by one key are sent as (KeyedReads), by their texts: see `keyedStatement`. Counted,
   * not weighed: they are the code's own reads of a read model by id, a handful.
   */
  private readonly keyedTogether = new CombinedStatements<KeyedShape>(STATEMENT_CACHE_SIZE, Infinity, () => 1);
  /**
   * Reads by one key outside a transaction, gathered per turn of the event loop into one statement: sent outside
   * any transaction whatever the context the turn's first read scheduled the send in.
   */
  private readonly keyed = new KeyedReads((sql, keys) =>
    this.transaction.exit(() => this.all<KeyedRow>(sql, [JSON.stringify(keys)])),
  );
  /** Statement names by numbered text; never evicted (a name must keep meaning its text on every connection). */
  private readonly names = new Map<string, string>();
  /** The length of the texts named so far (namedStatements.chars). */
  private namedChars = 0;
  /** The reader of each named statement's rows (Statement). */
  private readonly shapes = new Map<string, RowShape>();
  /** Held for the life of the process: the one controller allowed on this database. */
  private ownerLock: Client | undefined;
  /** The controller lock's connection on which this process also holds the background lock, if it does. */
  private leadingOn: Client | undefined;
  private askingToLead: Promise<boolean> | undefined;

  private ownership: Ownership = 'unclaimed';
  private claimMode: ClaimMode = 'alone';
  /** How many times this process took the controller lock: each time, another may have written meanwhile. */
  private claims = 0;
  private closing = false;
  statementsRun = 0;

  private constructor(
    private readonly pool: Pool,
    private readonly held: HeldConnections,
    private readonly statement: typeof Statement,
    private readonly types: TypeParsers,
    /** How many statements are named, and how much text they may hold together. */
    private readonly namedStatements: { count: number; chars: number },
    /** A connection outside the pool, for the controller lock. */
    private readonly newClient: () => Client,
    private readonly log: (line: string) => void,
  ) {}

  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresDriver> {
    const [{ default: pg }, { Statement }] = await Promise.all([import('pg'), import('./postgres-statement.js')]);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new StoreUrlError(
        `'${redact(url)}' is not a store URL: expected postgres://user[:password]@host[:port]/database`,
      );
    }
    if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
      throw new StoreUrlError(
        `unsupported store '${parsed.protocol}': expected postgres://user[:password]@host[:port]/database`,
      );
    }
    // Counts and BIGINT columns come back as numbers, as SQLite gives them (all of ours fit in 2^53). `pg` asks for
    // the parsers of every result's columns: one function, not a new one per BIGINT column of every result.
    const bigintAsNumber = (v: string) => Number(v);
    const types = {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? bigintAsNumber : pg.types.getTypeParser(oid, format as 'text'),
    };
    // A server that does not answer is reported within seconds (503), not after a request has waited for long.
    const config = { connectionString: url, connectionTimeoutMillis: 5_000, types };
    const pool = new pg.Pool({ ...config, max: POOL_SIZE });
    // An idle connection that fails (server restart) must not crash the process: the next query reconnects.
    pool.on('error', () => {});
    // Nor one lent out: the pool stops listening to a connection it lends, and an end told in the same packet as
    // the connection's readiness (pg_terminate_backend just as it connected) would come before the borrower could
    // listen. Its statements fail with the error instead; the pool lets it go when it is given back.
    pool.on('connect', (client) => client.on('error', () => {}));
    // TCP keep-alive on the connections kept for long, from 10 s of quiet (the system's default waits two hours): a
    // server gone without closing them (a host lost, a failover) is noticed, and with it a controller lock lost.
    const kept = { ...config, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };
    const newClient = () => new pg.Client(kept);
    const held = new HeldConnections(() => new pg.Client({ ...kept, pipeline: true }), HELD_CONNECTIONS);
    const log = opts.log ?? (() => {});
    const named = {
      count: opts.namedStatements ?? NAMED_STATEMENTS,
      chars: opts.namedStatementChars ?? STATEMENT_TEXT_CHARS,
    };
    const driver = new PostgresDriver(pool, held, Statement, types, named, newClient, log);
    try {
      await held.run((client) => client.query('SELECT 1'));
    } catch (err) {
      await Promise.all([held.close(), pool.end().catch(() => {})]);
      throw new StoreUnavailableError(`cannot connect to the store ${redact(url)}: ${describePgError(err)}`);
    }
    return driver;
  }

  /**
   * Takes the database for this process, or refuses: several controllers serving one database at once do not yet
   * share what they keep in memory, so a second one is told clearly and stops, unless every one of them opted in
   * (`shared`).
   */
  async claim(mode: ClaimMode = 'alone'): Promise<void> {
    this.claimMode = mode;
    if (await this.takeControllerLock()) return;
    throw new StoreUnavailableError(
      mode === 'alone'
        ? 'another controller is already using this database (one controller per database, unless every one is ' +
            'started with --shared-database)'
        : 'a controller started without --shared-database is using this database: stop it, or restart ' +
            'it with the flag',
    );
  }

  /**
   * Takes the controller lock on a connection of its own (a session-level lock lives as long as its connection);
   * false when another controller holds it. When that connection is lost (a server restart, a failover, an
   * administrator ending it), writes wait while the lock is taken again.
   */
  private async takeControllerLock(): Promise<boolean> {
    const client = this.newClient();
    // Reported by 'end', which follows: the error itself must not end the process.
    client.on('error', () => {});
    try {
      await client.connect();
      const take = this.claimMode === 'shared' ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
      const { rows } = await client.query<{ ok: boolean }>(`SELECT ${take}($1) AS ok`, [CONTROLLER_LOCK]);
      if (!rows[0].ok) {
        await client.end();
        return false;
      }
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    client.once('end', () => this.controllerLockLost());
    this.ownerLock = client;
    this.ownership = 'held';
    this.claims++;
    return true;
  }

  private controllerLockLost(): void {
    this.ownerLock = undefined;
    if (this.closing) return;
    this.ownership = 'reclaiming';
    this.log('store: the connection holding the controller lock was lost; writes wait until the lock is taken again');
    void this.reclaim();
  }

  /** Takes the controller lock again once the server answers; if another controller took it meanwhile, stops writes. */
  private async reclaim(): Promise<void> {
    for (let wait = RECLAIM_FIRST_MS; !this.closing; wait = Math.min(wait * 2, RECLAIM_MAX_MS)) {
      await sleep(wait, undefined, { ref: false });
      if (this.closing) return;
      let taken: boolean;
      try {
        taken = await this.takeControllerLock();
      } catch {
        continue; // the server is still away
      }
      if (taken) {
        this.log('store: took the controller lock again; writes resume');
      } else {
        this.ownership = 'taken';
        this.log(
          'store: another controller took this database while the connection was lost: ' +
            'this controller no longer writes. Stop one of them and restart this one',
        );
      }
      return;
    }
  }

  get soleWriterEpoch(): number | undefined {
    // A shared claim means other controllers write too: nothing this process caches can know of their writes.
    return this.ownership === 'held' && this.claimMode === 'alone' ? this.claims : undefined;
  }

  /**
   * Takes the background lock when no other controller holds it, on the controller lock's connection: a session
   * lock, so it is let go when that connection is lost (or the process dies) and another controller takes it at its
   * next try. A process that does not hold the database (the connection lost, being taken again) leads nothing.
   */
  async leadsBackgroundWork(): Promise<boolean> {
    const client = this.ownerLock;
    if (!client || this.ownership !== 'held') return false;
    if (this.leadingOn === client) return true;
    // Sweeps ask at the same moment: one question on the connection at a time, the others share its answer.
    this.askingToLead ??= client
      .query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [BACKGROUND_LOCK])
      .then(({ rows }) => {
        if (rows[0].ok) this.leadingOn = client;
        return rows[0].ok;
      })
      .finally(() => {
        this.askingToLead = undefined;
      });
    return this.askingToLead;
  }

  /** Refuses a write while this process does not hold the controller lock (another controller could be writing). */
  private checkOwnership(): void {
    if (this.ownership === 'reclaiming') {
      throw new StoreUnavailableError('lost the connection holding the controller lock: writes resume once retaken');
    }
    if (this.ownership === 'taken') {
      throw new StoreUnavailableError('another controller took this database: this one no longer writes (restart it)');
    }
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
    if (
      name === undefined &&
      this.names.size < this.namedStatements.count &&
      this.namedChars + text.length <= this.namedStatements.chars
    ) {
      name = `ctl_${this.names.size}`;
      this.names.set(text, name);
      this.namedChars += text.length;
    }
    return name;
  }

  private query<T>(sql: string, params: readonly unknown[]): Promise<StatementResult<T>> {
    const transaction = this.transaction.getStore();
    const text = this.text(sql);
    const name = this.nameOf(text);
    this.statementsRun++;
    const send = (client: Client) =>
      new Promise<StatementResult<T>>((resolve, reject) => {
        const answered = (err: unknown, result?: StatementResult<T>) => (result ? resolve(result) : reject(err));
        client.query(new this.statement<T>(text, name, params as unknown[], this.shapes, this.types, answered));
      });
    if (transaction) return send(transaction.client).catch(rethrowStoreError);
    return this.onHeld(send, text);
  }

  /**
   * Runs `use`, the statement `text`, on a held connection. A plain read (PLAIN_READ) is made once more when its
   * connection turned out to be ended (the server restarted, or ended it): the ended connection is let go as its
   * statement fails, so the read goes on another, and a read changes nothing. Without it, each held connection ended
   * under load failed the next statement sent on it (an answer of 503). A write is never sent twice: it may have
   * been done before the connection ended. The text is looked at only then, so a statement that succeeds pays nothing.
   */
  private onHeld<R>(use: (client: Client) => Promise<R>, text: string): Promise<R> {
    return this.held
      .run(use)
      .catch((err: unknown) =>
        connectionEnded(err) && PLAIN_READ.test(text) ? this.held.run(use) : Promise.reject(err),
      )
      .catch(rethrowStoreError);
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.query<T>(sql, params)).rows;
  }

  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params)).rows[0];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<RunResult> {
    if (!this.transaction.getStore()) this.checkOwnership();
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async allTogether(statements: readonly Fragment[]): Promise<Record<string, unknown>[][]> {
    if (statements.length === 1) return [await this.all(statements[0].sql, statements[0].params)];
    const key = sharedKey(statements);
    if (key !== undefined && !this.transaction.getStore()) {
      const shape = this.keyedTogether.get(statements, () => ({}));
      const keyed = shape.made === undefined ? await this.makeKeyed(shape, statements) : shape.made;
      if (keyed !== null) return this.keyed.read(keyed, key);
    }
    // Each statement keeps its own placeholders: its parameters follow those of the statements before it.
    const sql = this.together.get(statements, () => {
      const columns = statements.map((s, i) => `(SELECT coalesce(json_agg(q), '[]') FROM (${s.sql}) q) AS "${i}"`);
      return `SELECT ${columns.join(', ')}`;
    });
    const params = statements.flatMap((s) => s.params);
    const row = await this.get<Record<string, Record<string, unknown>[]>>(sql, params);
    return statements.map((_, i) => row![i]);
  }

  /** The keyed statement of these statements, made once their columns are known (none if they cannot make one). */
  private makeKeyed(shape: KeyedShape, statements: readonly Fragment[]): Promise<KeyedStatement | null> {
    // A failure, of the reads or of making the statement, leaves the shape to be made again by the next read.
    shape.making ??= Promise.all(statements.map((s) => this.columnsOf(s)))
      .then((columns) => (shape.made = keyedStatement(statements, columns)))
      .catch((err: unknown) => {
        shape.making = undefined;
        throw err;
      });
    return shape.making;
  }

  /** The names of a statement's columns, as PostgreSQL describes them (SQLite's driver asks its prepared statement). */
  private async columnsOf(statement: Fragment): Promise<string[]> {
    const text = this.text(`SELECT * FROM (${statement.sql}) q LIMIT 0`);
    this.statementsRun++;
    const described = await this.onHeld((c) => c.query(text, [...statement.params]), text);
    return described.fields.map((f) => f.name);
  }

  async exec(sql: string): Promise<void> {
    const runner = this.transaction.getStore()?.client ?? this.pool;
    this.statementsRun++;
    await runner.query(sql);
  }

  async tx<T>(fn: () => Promise<T>): Promise<T> {
    if (this.transaction.getStore()) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(fn);
      } catch (err) {
        if (attempt === TX_ATTEMPTS || !RETRIED.has(String((err as { code?: unknown }).code))) throw err;
        // Apart, at random, so that the transactions that collided do not collide again.
        await sleep(Math.random() * 10 * attempt);
      }
    }
  }

  /** One run of a transaction on a pooled connection of its own. */
  private async attempt<T>(fn: () => Promise<T>): Promise<T> {
    this.checkOwnership();
    // The server may end the connection while `fn` awaits something else: the next statement fails (every pooled
    // connection has a listener for its error, see open), not the process.
    const client = await this.pool.connect().catch((err: unknown) => Promise.reject(storeError(err)));
    this.openTransactions++;
    let broken: Error | undefined;
    const control = (statement: 'BEGIN' | 'COMMIT' | 'ROLLBACK') => {
      this.statementsRun++;
      return client.query(statement);
    };
    try {
      await control('BEGIN');
      const transaction: Transaction = { client, committed: new Map() };
      const result = await this.transaction.run(transaction, fn);
      await control('COMMIT');
      for (const committed of transaction.committed.values()) committed();
      return result;
    } catch (err) {
      // A connection that cannot even roll back is broken: the pool must drop it, not lend it again.
      await control('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw storeError(err);
    } finally {
      client.release(broken);
      if (--this.openTransactions === 0) this.transaction.disable();
    }
  }

  async hold(lock: WriteLock, key?: string): Promise<void> {
    if (!this.transaction.getStore()) throw new Error(`hold('${lock}') outside a transaction would release it at once`);
    if (key === undefined) await this.query('SELECT pg_advisory_xact_lock(?)', [WRITE_LOCKS[lock]]);
    // The two-number locks are apart from the one-number ones; two keys of one hash merely wait for each other.
    else await this.query('SELECT pg_advisory_xact_lock(?::int, hashtext(?))', [WRITE_LOCKS[lock], key]);
  }

  afterCommit(key: string, fn: () => void): boolean {
    const transaction = this.transaction.getStore();
    transaction?.committed.set(key, fn);
    return transaction !== undefined;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.ownerLock?.end().catch(() => {});
    this.ownerLock = undefined;
    await Promise.all([this.held.close(), this.pool.end()]);
  }
}

/**
 * `pg` reports a connection that ended, or that could not be made in time, with an Error that has no SQLSTATE
 * code; the store says what it is (errors with a code are classified where errors become answers, server/errors.ts).
 */
function storeError(err: unknown): unknown {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (err instanceof StoreUnavailableError || e?.code !== undefined || typeof e?.message !== 'string') return err;
  // A connection that ended, as the held connections read it; one that is not queryable; one not made in time
  // (a pooled connection reports 'timeout exceeded ...', a held one 'timeout expired').
  const failed = /not queryable|timeout exceeded when trying to connect|timeout expired/;
  if (!connectionEnded(err) && !failed.test(e.message)) {
    return err;
  }
  return new StoreUnavailableError(`the connection to the database failed (${e.message}): try again`, { cause: err });
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

function rethrowStoreError(err: unknown): never {
  throw storeError(err);
}

/**
 * A statement that only reads: a SELECT, not a `WITH` (which may hold a write) nor anything `get` runs for its
 * returned row (INSERT ... RETURNING). The store's SELECTs outside a transaction call nothing that changes anything
 * (advisory locks are taken in transactions or on connections of their own).
 */
const PLAIN_READ = /^\s*SELECT\s/i;

/**
 * Text PostgreSQL's JSON cannot carry to a text value (NUL, an unpaired surrogate): a key holding it is read alone,
 * so that its failure is its own request's and not that of every read gathered with it.
 */
const NOT_IN_JSON_TEXT = /\u0000|\p{Cs}/u;

/**
 * The one value every statement is bound to, if each has exactly one and it is the same text (a read by a key).
 * Gathered, it is compared as text (`k.v`), as the store's keys are: ids and references to them.
 */
function sharedKey(statements: readonly Fragment[]): string | undefined {
  const key = statements[0].params[0];
  if (typeof key !== 'string' || NOT_IN_JSON_TEXT.test(key)) return undefined;
  for (const s of statements) if (s.params.length !== 1 || s.params[0] !== key) return undefined;
  return key;
}

/** Statements read together by one key: their keyed statement once made, null if they cannot make one. */
interface KeyedShape {
  made?: KeyedStatement | null;
  making?: Promise<KeyedStatement | null>;
}

/** The most arguments a PostgreSQL function takes: `json_build_array` of more columns cannot be made. */
const MOST_ARGUMENTS = 100;

/**
 * `SELECT k.v AS "key", (SELECT coalesce(json_agg(json_build_array(q."c1", ...)), '[]')::text FROM (<statement,
 * bound to k.v>) q) AS "0", ... FROM json_array_elements_text(?::json) k(v)`: each statement's rows for every key
 * sent, a row per key (KeyedReads). Each row an array of its values, as SQLite's statements read together are:
 * objects naming their columns (`json_agg(q)`) cost PostgreSQL 12 to 16 µs more per key of an identity's read
 * model, and the controller a longer text to parse. The keys are a JSON array, not a text[] with unnest: PostgreSQL
 * estimates unnest's rows from the array it is given, so a prepared statement's plan made for any array looked
 * costlier than one made for the array at hand, and it planned the statement again at every execution (about
 * 200 µs of its CPU each). Null (read as they are, not gathered) where a statement names a column twice, whose
 * objects would read the first value twice, names one with a `?`, or has more columns than one function takes.
 */
function keyedStatement(statements: readonly Fragment[], columns: readonly string[][]): KeyedStatement | null {
  const reads: string[] = [];
  for (const [i, s] of statements.entries()) {
    const names = columns[i];
    // A `?` in a name would be numbered as a parameter (PostgreSQL names an unnamed expression `?column?`).
    if (new Set(names).size !== names.length || names.length > MOST_ARGUMENTS || names.some((n) => n.includes('?')))
      return null;
    const [before, after, ...more] = s.sql.split('?');
    if (after === undefined || more.length > 0) throw new Error(`not a statement of one parameter: ${s.sql}`);
    const values = names.map((c) => `q.${quote(c)}`).join(', ');
    reads.push(
      `(SELECT coalesce(json_agg(json_build_array(${values})), '[]')::text FROM (${before}k.v${after}) q) AS "${i}"`,
    );
  }
  return {
    sql: `SELECT k.v AS "key", ${reads.join(', ')} FROM json_array_elements_text(?::json) k(v)`,
    makers: columns.map(rowMaker),
  };
}
