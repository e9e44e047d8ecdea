// Faults under three controllers serving one PostgreSQL database. kill -9 of one of them (`ctl controller start` as
// processes of their own) during a write storm spread over all three: every write answered 201, on any of them, is
// found afterwards on the two left, they keep answering through the kill (the longest wait between two answers on
// either is measured and held to a generous bound), the killed one is shown offline and, restarted, online again.
// And the database going away under all three (a PostgreSQL server of this file's own, stopped and started again):
// each answers 503 STORE_UNAVAILABLE with Retry-After meanwhile, keeps running, and serves again by itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { controllerProcesses, type StartedController } from '../helpers/controller-process.js';
import {
  assertStatus,
  HttpHelper,
  type HttpResponse,
  randomPassword,
  storeUnderTest,
  unique,
} from '../helpers/controller.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { REPO_ROOT } from '../helpers/spec.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

/** Generous: the survivors answer in milliseconds; the bound only catches a survivor stalled by the kill. */
const LONGEST_GAP_MS = 5_000;
/** A row not refreshed for 15 s is offline; the membership refresh runs every 5 s. */
const OFFLINE_WITHIN_MS = 25_000;
/** How soon every controller must serve writes again once the database is back. */
const RECOVERY_MS = 10_000;

const controllers = controllerProcesses();
const pgOnly = { skip: storeUnderTest() !== 'postgres' && 'PostgreSQL only' };

/** A controller process of the cluster, with what a test needs to reach it. */
interface Member {
  dataDir: string;
  port: number;
  process: StartedController;
}

/** A new identity's body. */
const identity = (prefix: string) => ({ name: unique(prefix), type: 'User', isAdmin: false, roleAttributes: ['s'] });

/** Three controllers of one database, started as `ctl controller start` processes with the same key file. */
async function startCluster(storeUrl: string) {
  const tmp = await controllers.tmpDir('ctl-cluster-faults-');
  const keyFile = await writeTestKeyFile(tmp);
  const adminPassword = randomPassword();
  const start = async (dataDir: string, port: number): Promise<Member> => {
    const args = ['--data-dir', dataDir, '--port', String(port), '--store', storeUrl, '--pki-key-file', keyFile];
    const started = await controllers.start([...args, '--shared-database'], {
      CTL_ADMIN_PASSWORD: adminPassword,
    });
    assert.equal(started.code(), undefined, `the controller runs:\n${started.stderr()}`);
    return { dataDir, port, process: started };
  };
  // One after the other: the first writes the PKI that the others open.
  const members: Member[] = [];
  for (const name of ['a', 'b', 'c']) members.push(await start(path.join(tmp, name), await freePort()));
  const caPem = await readFile(path.join(members[0].dataDir, 'ca-bundle.pem'), 'utf8');
  const token = (await new HttpHelper(`https://127.0.0.1:${members[0].port}`, caPem).loginAs('admin', adminPassword))
    .token;
  /** A helper on a member, logged in with the one session made on the first. */
  const api = (member: Member) => new HttpHelper(`https://127.0.0.1:${member.port}`, caPem, token);
  return { members, api, restart: (member: Member) => start(member.dataDir, member.port) };
}

/** The /controllers row of a member, as another member lists it. */
async function membership(lister: HttpHelper, member: Member): Promise<{ isOnline: boolean } | undefined> {
  const id = (await readFile(path.join(member.dataDir, 'controller-id'), 'utf8')).trim();
  const listed = await lister.get('/controllers');
  assertStatus(listed, 200, 'GET /controllers');
  return listed.body.data.find((row: { id: string }) => row.id === id);
}

/** Whether a request was served; else it must have been refused 503 STORE_UNAVAILABLE, saying when to retry. */
function served(res: HttpResponse): boolean {
  if (res.status < 300) return true;
  assert.equal(res.status, 503, `served or unavailable, never another failure: ${res.text.slice(0, 500)}`);
  assert.equal(res.body.error.code, 'STORE_UNAVAILABLE');
  assert.match(String(res.headers['retry-after']), /^\d+$/, 'with Retry-After');
  return false;
}

/** Polls until `done` answers true, failing after `within` ms with `what`. */
async function until(done: () => Promise<boolean>, within: number, what: string): Promise<number> {
  const start = Date.now();
  while (!(await done())) {
    assert.ok(Date.now() - start < within, `${what}, within ${within} ms`);
    await sleep(200);
  }
  return Date.now() - start;
}

describe('three controllers on one database, one killed during a write storm', pgOnly, () => {
  let database: TestDatabase;
  before(async () => (database = await createTestDatabase()));
  after(async () => database?.drop());

  it('loses no acknowledged write, the others keep answering, and the killed one rejoins', async (t) => {
    const { members, api, restart } = await startCluster(database.url);
    const [victim, ...survivors] = [members[1], members[0], members[2]];
    const acknowledged: string[] = [];
    /** Per survivor, when each of its answers arrived. */
    const answeredAt = new Map<Member, number[]>(survivors.map((m) => [m, []]));
    let stopped = false;
    let victimDown = false;
    const storm = members.flatMap((member) =>
      Array.from({ length: 3 }, async () => {
        const helper = api(member);
        while (!stopped) {
          let res: HttpResponse;
          try {
            res = await helper.post('/identities', identity('storm'));
          } catch (err) {
            // Only the killed controller may fail to answer; its writes in flight were never acknowledged.
            assert.ok(member === victim && victimDown, `${member.port} did not answer: ${err}`);
            return;
          }
          assertStatus(res, 201, `a write on ${member.port}`);
          acknowledged.push(res.body.data.id);
          answeredAt.get(member)?.push(Date.now());
        }
      }),
    );
    await sleep(1_500);
    const killedAt = Date.now();
    victimDown = true;
    victim.process.child.kill('SIGKILL');
    await sleep(2_000);
    stopped = true;
    await Promise.all(storm);

    for (const survivor of survivors) {
      const times = (answeredAt.get(survivor) ?? []).filter((at) => at >= killedAt - 1_000);
      assert.ok(
        times.some((at) => at > killedAt + 1_000),
        `${survivor.port} answered after the kill`,
      );
      const gap = Math.max(...times.slice(1).map((at, i) => at - times[i]), times[0] - killedAt);
      t.diagnostic(`longest wait between answers on ${survivor.port} around the kill: ${gap} ms`);
      assert.ok(gap < LONGEST_GAP_MS, `${survivor.port} waited ${gap} ms between answers`);
      const listed = await api(survivor).get('/identities', { query: { limit: -1, filter: 'name contains "storm"' } });
      assertStatus(listed, 200, 'the storm listed');
      const found = new Set(listed.body.data.map((row: { id: string }) => row.id));
      const lost = acknowledged.filter((id) => !found.has(id));
      assert.deepEqual(lost, [], `of ${acknowledged.length} acknowledged writes, none is missing on ${survivor.port}`);
    }
    t.diagnostic(`${acknowledged.length} writes acknowledged`);

    const lister = api(survivors[0]);
    const offlineAfter = await until(
      async () => (await membership(lister, victim))?.isOnline === false,
      OFFLINE_WITHIN_MS,
      'the killed controller is shown offline',
    );
    t.diagnostic(`shown offline ${offlineAfter} ms after the storm ended`);
    const restarted = await restart(victim);
    await until(
      async () => (await membership(lister, victim))?.isOnline === true,
      OFFLINE_WITHIN_MS,
      `the restarted controller is shown online again:\n${restarted.process.stderr()}`,
    );
    assertStatus(await api(victim).post('/identities', identity('rejoined')), 201, 'the rejoined one writes');
  });
});

/** Runs scripts/pg-cluster.mjs on this file's own PostgreSQL server; answers what it printed. */
function server(command: 'start' | 'stop' | 'halt' | 'resume', stateFile: string): string {
  const script = path.join(REPO_ROOT, 'scripts', 'pg-cluster.mjs');
  const r = spawnSync(process.execPath, [script, command, '--state', stateFile], { encoding: 'utf8' });
  assert.equal(r.status, 0, `pg-cluster ${command}: ${r.stderr}`);
  return r.stdout.trim();
}

describe('three controllers on one database, the database going away and coming back', pgOnly, () => {
  let stateFile: string;
  before(async () => {
    stateFile = path.join(await controllers.tmpDir('ctl-cluster-db-'), 'server.json');
  });
  after(() => server('stop', stateFile));

  it('each answers 503 STORE_UNAVAILABLE with Retry-After meanwhile, and serves again by itself', async (t) => {
    const database = await createTestDatabase({ serverUrl: server('start', stateFile) });
    const { members, api } = await startCluster(database.url);
    server('halt', stateFile);
    try {
      for (const member of members) {
        const refused = await api(member).post('/identities', identity('down'), { allow5xx: true });
        assert.equal(served(refused), false, `a write on ${member.port} while the database is away`);
        const listed = await api(member).get('/identities', { allow5xx: true });
        assert.equal(served(listed), false, `a read on ${member.port} while the database is away`);
        assertStatus(await api(member).anonymous().get('/version'), 200, 'GET /version answers meanwhile');
      }
    } finally {
      server('resume', stateFile);
    }
    for (const member of members) {
      const took = await until(
        async () => served(await api(member).post('/identities', identity('back'), { allow5xx: true })),
        RECOVERY_MS,
        `${member.port} serves writes again`,
      );
      t.diagnostic(`${member.port} served writes again ${took} ms after the database came back`);
      assert.equal(member.process.code(), undefined, `${member.port} kept running:\n${member.process.stderr()}`);
    }
  });
});
