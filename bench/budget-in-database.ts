// What the client API's request budget costs when controllers share a PostgreSQL database: each budgeted request
// takes its token in one statement (an upsert that adds only within the burst) instead of a map lookup. Measured
// against one round trip of the same connection pool (`SELECT 1`), alternated over rounds, with 16 requests in
// flight over 64 API sessions, as a controller under load would make them. Nothing passes or fails.
//
//   node --import tsx bench/budget-in-database.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseLoginThrottle } from '../src/controller/auth/database-throttle.js';
import { DEFAULT_LOGIN_THROTTLE, type AttemptBuckets, TokenBuckets } from '../src/controller/auth/throttle.js';
import { Store } from '../src/controller/store/store.js';
import { freshDatabase, startCluster } from './pg-database.js';
import { median } from './stats.js';

const ROUNDS = 5;
const PER_ROUND = 4_000;
const IN_FLIGHT = 16;
const SESSIONS = 64;
/** Far above what the bench spends, so that no request is refused and every one is an addition. */
const BUDGET = { capacity: 1_000_000, refillPerSecond: 1_000, maxKeys: 100_000 };

/** Microseconds per operation, `IN_FLIGHT` at once. */
async function perOp(op: (i: number) => unknown): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < PER_ROUND) await op(next++);
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return Number(process.hrtime.bigint() - start) / 1e3 / PER_ROUND;
}

const dir = mkdtempSync(join(tmpdir(), 'ctl-bench-budget-'));
const cluster = startCluster(join(dir, 'pg.json'));
if ('unavailable' in cluster) {
  console.log(`no PostgreSQL: ${cluster.unavailable}`);
  process.exit(0);
}
try {
  const store = await Store.open({ postgres: await freshDatabase(cluster.url) });
  const inDatabase: AttemptBuckets = new DatabaseLoginThrottle(store.loginAttempts, DEFAULT_LOGIN_THROTTLE).bucketsFor(
    'budget',
    BUDGET,
    Date.now,
  );
  const memory = new TokenBuckets(BUDGET);
  const key = (i: number) => `session-${i % SESSIONS}`;
  const rows: Record<'memory' | 'roundTrip' | 'inDatabase', number[]> = { memory: [], roundTrip: [], inDatabase: [] };
  await perOp((i) => inDatabase.takeIfAny(key(i))); // warm-up: the rows exist and the statements are prepared
  for (let round = 0; round < ROUNDS; round++) {
    rows.memory.push(await perOp((i) => memory.takeIfAny(key(i))));
    rows.roundTrip.push(await perOp(() => (store as unknown as Probe).driver.get('SELECT 1')));
    rows.inDatabase.push(await perOp((i) => inDatabase.takeIfAny(key(i))));
  }
  await store.close();
  const [memoryUs, roundTripUs, inDatabaseUs] = [median(rows.memory), median(rows.roundTrip), median(rows.inDatabase)];
  console.log(`budget in memory:        ${memoryUs.toFixed(2)} us a request`);
  console.log(`SELECT 1 (a round trip): ${roundTripUs.toFixed(1)} us a request`);
  const ratio = (inDatabaseUs / roundTripUs).toFixed(2);
  console.log(`budget in the database:  ${inDatabaseUs.toFixed(1)} us a request (${ratio}x a round trip)`);
} finally {
  cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The store's driver, for the baseline statement (the bench only: nothing outside store/ writes SQL). */
interface Probe {
  driver: { get(sql: string): Promise<unknown> };
}
