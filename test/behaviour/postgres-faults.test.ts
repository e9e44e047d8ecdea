// PostgreSQL failing under a running controller, on a throwaway cluster of this file's own (never the one other
// tests share): connections of the pool ended by an administrator, the connection holding the controller lock
// ended, the server stopped and started again during traffic, another controller taking the lock meanwhile. The
// process lives through all of it; while the database is away, requests get 503 STORE_UNAVAILABLE with
// Retry-After (never a 500) and /version keeps answering; within seconds of it coming back, all is served again.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CONTROLLER_LOCK } from '../../src/controller/store/postgres-driver.js';
import {
  type HttpHelper,
  type HttpResponse,
  startTestController,
  type TestController,
  unique,
} from '../helpers/controller.js';
import { createTestDatabase, PG_URL_VARIABLE, type TestDatabase } from '../helpers/postgres.js';
import { REPO_ROOT } from '../helpers/spec.js';

/** How soon the controller must serve normally again once the database is back. */
const RECOVERY_MS = 5_000;

// Made when the suite runs, not when the file loads: a skipped suite's `after` never removes it.
let work: string;
let stateFile: string;

/** Runs scripts/pg-cluster.mjs on this file's cluster; returns what it printed. */
function cluster(command: 'start' | 'stop' | 'halt' | 'resume'): string {
  const script = path.join(REPO_ROOT, 'scripts', 'pg-cluster.mjs');
  const r = spawnSync(process.execPath, [script, command, '--state', stateFile], { encoding: 'utf8' });
  assert.equal(r.status, 0, `pg-cluster ${command}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A request's answer: served, or 503 STORE_UNAVAILABLE saying when to retry; anything else fails the test. */
function servedOrUnavailable(res: HttpResponse, what: string): 'served' | 'unavailable' {
  if (res.status < 300) return 'served';
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text.slice(0, 500)}`);
  assert.equal(res.body.error.code, 'STORE_UNAVAILABLE', what);
  assert.match(String(res.headers['retry-after']), /^\d+$/, `${what}: Retry-After`);
  return 'unavailable';
}

/** Writes and reads through the API until `stop` resolves; returns how many of each outcome. */
type Outcomes = Record<'served' | 'unavailable', number>;

/** A new identity's body. */
const identity = (prefix: string) => ({ name: unique(prefix), type: 'User', isAdmin: false, roleAttributes: ['t'] });

async function traffic(admin: HttpHelper, clients: number, stop: Promise<void>): Promise<Outcomes> {
  const counts = { served: 0, unavailable: 0 };
  let stopped = false;
  void stop.then(() => (stopped = true));
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped) {
        const created = await admin.post('/identities', identity('traffic'), { allow5xx: true });
        counts[servedOrUnavailable(created, 'POST /identities')]++;
        const listed = await admin.get('/identities', { query: { limit: 5 }, allow5xx: true });
        counts[servedOrUnavailable(listed, 'GET /identities')]++;
        // Reads by id, which the driver gathers per turn into one statement (store/keyed-reads.ts).
        const shown = listed.status < 300 ? listed.body.data[0]?.id : undefined;
        if (shown) {
          const byId = await admin.get(`/identities/${shown}`, { allow5xx: true });
          counts[servedOrUnavailable(byId, 'GET /identities/{id}')]++;
        }
      }
    }),
  );
  return counts;
}

/** Waits until a write succeeds again; returns how long it took. */
async function untilWritesServed(admin: HttpHelper, within: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const res = await admin.post('/identities', identity('back'), { allow5xx: true });
    if (servedOrUnavailable(res, 'POST /identities') === 'served') return Date.now() - start;
    assert.ok(Date.now() - start < within, `writes were still refused ${within} ms later`);
    await sleep(100);
  }
}

// The cluster is this file's own, but PostgreSQL's binaries are there when the shared one is.
const skip = process.env[PG_URL_VARIABLE] ? false : `${PG_URL_VARIABLE} is not set`;

describe('PostgreSQL failing under the controller', { skip }, () => {
  let serverUrl: string;
  let database: TestDatabase;
  let ctl: TestController;
  let admin: HttpHelper;
  /** The test's own connection to the controller's database, as an administrator's. */
  let dba: pg.Client;

  before(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'ctl-pg-faults-'));
    stateFile = path.join(work, 'cluster.json');
    serverUrl = cluster('start');
    database = await createTestDatabase({ migrated: true, serverUrl });
    ctl = await startTestController({ storeUrl: database.url });
    admin = await ctl.admin();
  });
  after(async () => {
    await dba?.end().catch(() => {});
    await ctl?.close();
    if (work) {
      cluster('stop');
      rmSync(work, { recursive: true, force: true });
    }
  });

  /** Waits until the controller has logged a line holding `text`. */
  const logged = async (text: string) => {
    const start = Date.now();
    while (!ctl.logs.some((l) => l.includes(text))) {
      assert.ok(Date.now() - start < RECOVERY_MS, `the controller did not log '${text}': ${ctl.logs.join('\n')}`);
      await sleep(50);
    }
  };

  const connectDba = async () => {
    await dba?.end().catch(() => {});
    dba = new pg.Client({ connectionString: database.url });
    await dba.connect();
  };

  /** The server process holding the controller lock, if any does. */
  const lockHolder = async (): Promise<number | undefined> => {
    const { rows } = await dba.query<{ pid: number }>(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1 " +
        'AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      [CONTROLLER_LOCK],
    );
    return rows[0]?.pid;
  };

  /** Ends the controller's connections to its database: those of the pool, or the one holding the lock. */
  const terminate = async (which: 'pool' | 'lock'): Promise<number> => {
    const holder = await lockHolder();
    assert.ok(holder, 'the controller holds its lock');
    const { rows } = await dba.query<{ pid: number }>(
      which === 'lock'
        ? 'SELECT pg_terminate_backend($1::int), $1::int AS pid'
        : 'SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity ' +
            'WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> $1::int',
      [holder],
    );
    return rows.length;
  };

  it('lives through the pool connections being ended during traffic, answering 503 (never 500) meanwhile', async () => {
    await connectDba();
    let done!: () => void;
    const during = traffic(admin, 4, new Promise<void>((resolve) => (done = resolve)));
    let ended = 0;
    for (let i = 0; i < 5; i++) {
      await sleep(150);
      ended += await terminate('pool');
    }
    done();
    const counts = await during;
    assert.ok(ended > 0, 'connections of the pool were ended');
    assert.ok(counts.served > 0, 'requests were served around the faults');
    await untilWritesServed(admin, RECOVERY_MS);
  });

  it('takes the controller lock again when its connection is ended, and writes resume', async () => {
    const before = await lockHolder();
    assert.equal(await terminate('lock'), 1);
    // The server ends the session at once; the controller hears of it when its socket closes.
    await logged('the connection holding the controller lock was lost');
    await untilWritesServed(admin, RECOVERY_MS);
    await logged('took the controller lock again');
    const now = await lockHolder();
    assert.ok(now && now !== before, `the lock is held again, by a new connection (${before} then ${now})`);
  });

  it('answers 503 while PostgreSQL is stopped, /version throughout, and serves again once it is back', async () => {
    let done!: () => void;
    const during = traffic(admin, 3, new Promise<void>((resolve) => (done = resolve)));
    await sleep(200);
    await dba.end().catch(() => {});
    cluster('halt');
    try {
      await sleep(500);
      const refused = await admin.post('/identities', identity('down'), { allow5xx: true });
      assert.equal(servedOrUnavailable(refused, 'POST /identities while stopped'), 'unavailable');
      assert.equal((await admin.get('/identities', { allow5xx: true })).status, 503);
      const version = await admin.anonymous().get('/version');
      assert.equal(version.status, 200, 'GET /version answers while the database is away');
      // Away for longer than the waits between attempts to take the lock again grow to.
      await sleep(3000);
    } finally {
      cluster('resume');
    }
    done();
    const counts = await during;
    assert.ok(counts.unavailable > 0, 'requests during the stop were answered 503');
    await untilWritesServed(admin, RECOVERY_MS);
    await connectDba();
    assert.ok(await lockHolder(), 'the controller holds its lock again');
    const listed = await admin.get('/identities', { query: { filter: 'name contains "traffic"', limit: 1 } });
    assert.equal(listed.status, 200);
  });

  it('stops writing, and says so, when another controller took the lock while its connection was lost', async () => {
    // Another controller would take the lock with a session of its own: the test's connection does the same.
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      const { rows } = await dba.query<{ pid: number }>('SELECT pg_terminate_backend($1::int)', [await lockHolder()]);
      assert.equal(rows.length, 1);
      await other.query('SELECT pg_advisory_lock($1)', [CONTROLLER_LOCK]);
      await logged('another controller took this database');
      const refused = await admin.post('/identities', identity('fenced'), { allow5xx: true });
      assert.equal(servedOrUnavailable(refused, 'POST /identities after the lock was taken'), 'unavailable');
      assert.match(refused.body.error.message, /another controller/);
    } finally {
      await other.end();
    }
  });
});
