// Two controllers serving one PostgreSQL database at the same time, both started with --shared-database: each answers
// for what the other wrote, both are listed online, and a controller that did not opt in is kept apart. What they
// share: facts kept until a write, service update stamps, used MFA codes, failed-login and wrong-code counts,
// reported posture and posture refusals, the per-session request budget, and background work run by one of them
// at a time. And the upgrade rule they depend on: a controller older than the database's schema does not start.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startController } from '../../src/controller/index.js';
import type { ControllerOptions } from '../../src/controller/types.js';
import {
  assertStatus,
  createIdentity,
  createUser,
  HttpHelper,
  startTestController,
  storeUnderTest,
  unique,
  type TestController,
} from '../helpers/controller.js';
import { TEST_PASSWORD_COST } from '../helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { code, secretOf } from '../helpers/totp.js';
import { MIGRATIONS } from '../../src/controller/store/migrations/index.js';
import { DEFAULT_UPDB_RULES } from '../../src/resources/auth-policy.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const postgres = storeUnderTest() === 'postgres';

describe('controllers serving one database at once (--shared-database)', () => {
  let tmp: string;
  let keyFile: string;
  let database: TestDatabase | undefined;
  const running: TestController[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-cluster-live-'));
    keyFile = await writeTestKeyFile(tmp);
    if (postgres) database = await createTestDatabase();
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  const options = (name: string, extra: Partial<ControllerOptions> = {}): Partial<ControllerOptions> => ({
    dataDir: path.join(tmp, name),
    storeUrl: database?.url ?? path.join(tmp, 'shared.db'),
    pkiKeyFile: keyFile,
    sharedDatabase: true,
    ...extra,
  });
  const refusal = (name: string, extra: Partial<ControllerOptions>) => {
    const base = { port: 0, adminPassword: 'unused-pw', passwordCost: TEST_PASSWORD_COST };
    return startController({ ...base, ...options(name), ...extra } as ControllerOptions);
  };

  it('is refused without the shared PKI, and on SQLite', async () => {
    // Refused before the store is opened: the URL is never reached.
    const pgUrl = database?.url ?? 'postgres://ctl@127.0.0.1:1/never-reached';
    const noKey = refusal('no-key', { pkiKeyFile: undefined, storeUrl: pgUrl });
    await assert.rejects(noKey, /--shared-database needs --pki-key-file/);
    const sqlite = refusal('sqlite', { storeUrl: path.join(tmp, 'alone.db') });
    await assert.rejects(sqlite, /--shared-database needs a PostgreSQL store/);
  });

  const pgOnly = { skip: !postgres && 'PostgreSQL only' };
  const runsSweeps = /this controller runs the database.s .*session sweep/;
  /** Whether the controller said it runs the background work (the sweeps). */
  const leading = (ctl: TestController) => ctl.logs.some((line) => runsSweeps.test(line));
  const client = (ctl: TestController, token?: string) => new HttpHelper(ctl.url, ctl.caPem, token, 'client');
  /** Completes the user's MFA enrollment on `ctl` with the code of the step before now; answers its secret. */
  const enrolMfa = async (ctl: TestController, user: { username: string; password: string }) => {
    const session = client(ctl, await client(ctl).login(user.username, user.password));
    assertStatus(await session.post('/current-identity/mfa', {}), 201, 'MFA enrollment begins');
    const secret = secretOf((await session.get('/current-identity/mfa')).body.data.provisioningUrl);
    assertStatus(await session.post('/current-identity/mfa/verify', { code: await code(secret, -1) }), 200, 'verified');
    return secret;
  };

  it('both serve at once: what one writes the other answers, and both are listed online', pgOnly, async () => {
    const a = await startTestController(options('a'));
    running.push(a);
    const b = await startTestController(options('b', { adminPassword: a.adminPassword }));
    running.push(b);
    assert.equal(b.caPem, a.caPem);
    const adminA = await a.admin();
    const name = unique('seen-by-both');
    const id = await createIdentity(adminA, { name });
    const onB = await new HttpHelper(b.url, b.caPem, adminA.token).get(`/identities/${id}`);
    assertStatus(onB, 200, 'the session and the identity made on the first, read on the second');
    assert.equal(onB.body.data.name, name);
    for (const ctl of [a, b]) {
      const listed = (await (await ctl.admin()).get('/controllers')).body.data as Array<{ isOnline: boolean }>;
      assert.deepEqual(
        listed.map((row) => row.isOnline),
        [true, true],
      );
    }
    // A controller that did not opt in is refused while they serve, and told how.
    const alone = refusal('c', { sharedDatabase: false });
    await assert.rejects(alone, /unless every one is started with --shared-database/);
  });

  it('a fact a controller keeps until a write is read again after another controller writes it', pgOnly, async () => {
    // Whether any identity has MFA is kept (identity pages read nothing for it until one has): B keeps "none" here,
    // then A completes an enrollment, and B's very next answer shows it. Runs before any other MFA enrollment.
    const [a, b] = running;
    const adminA = await a.admin();
    const adminB = new HttpHelper(b.url, b.caPem, adminA.token);
    const user = await createUser(adminA);
    for (let i = 0; i < 2; i++) {
      assert.equal((await adminB.get(`/identities/${user.id}`)).body.data.isMfaEnabled, false, 'no MFA yet');
    }
    await enrolMfa(a, user);
    assert.equal((await adminB.get(`/identities/${user.id}`)).body.data.isMfaEnabled, true, 'seen on B at once');
  });

  it('a change written through one controller moves the service update check on the other', pgOnly, async () => {
    const [a, b] = running;
    const adminA = await a.admin();
    const user = await createUser(adminA);
    const onB = client(b, await client(b).login(user.username, user.password));
    const stamp = async () => (await onB.get('/current-api-session/service-updates')).body.data.lastChangeAt;
    const before = await stamp();
    await sleep(5);
    const patched = await adminA.patch(`/identities/${user.id}`, { roleAttributes: ['moved'] });
    assertStatus(patched, 200, 'new attributes, on A');
    const after = await stamp();
    assert.ok(Date.parse(after) > Date.parse(before), `the check on B moved (${before} -> ${after})`);
  });

  it('an MFA code accepted by one controller is refused by the other, even sent to both at once', pgOnly, async () => {
    const [a, b] = running;
    const adminA = await a.admin();
    // Several users, so that codes sent to both at once meet in the database more than once.
    const users = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const user = await createUser(adminA);
        return { ...user, secret: await enrolMfa(a, user) };
      }),
    );
    const partial = async (ctl: TestController, user: (typeof users)[number]) =>
      client(ctl, await client(ctl).login(user.username, user.password));
    // One after the other: the code A accepted is a replay on B.
    const [first] = users;
    const [firstOnA, firstOnB] = [await partial(a, first), await partial(b, first)];
    const current = await code(first.secret);
    assertStatus(await firstOnA.post('/authenticate/mfa', { code: current }), 200, 'the code on A');
    const replay = await firstOnB.post('/authenticate/mfa', { code: current });
    assertStatus(replay, 400, 'the same code on B');
    assert.equal(replay.body.error.code, 'MFA_INVALID_TOKEN');
    // At once: of each user's two sessions exactly one passes with the code (the next step's, unused so far).
    const answers = await Promise.all(
      users.map(async (user) => {
        const sessions = [await partial(a, user), await partial(b, user)];
        const next = await code(user.secret, 1);
        const results = await Promise.all(sessions.map((s) => s.post('/authenticate/mfa', { code: next })));
        return results.map((res) => res.status).sort();
      }),
    );
    assert.deepEqual(
      answers,
      users.map(() => [200, 400]),
      'one code, one session, whichever controller',
    );
  });

  it('failed logins and wrong MFA codes count across the controllers: lockout and throttles', pgOnly, async () => {
    const [a, b] = running;
    const adminA = await a.admin();
    const anonymous = [client(a), client(b)];
    const policy = await adminA.post('/auth-policies', {
      name: unique('three-attempts'),
      primary: {
        cert: { allowed: true, allowExpiredCerts: false },
        updb: { ...DEFAULT_UPDB_RULES, maxAttempts: 3, lockoutDurationMinutes: 5 },
        extJwt: { allowed: true, allowedSigners: [] },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: null },
    });
    assertStatus(policy, 201, 'an auth policy locking out after three failed passwords');
    const guarded = await createUser(adminA);
    const patched = await adminA.patch(`/identities/${guarded.id}`, { authPolicyId: policy.body.data.id });
    assertStatus(patched, 200, 'the user under that policy');
    const attempt = (on: number, username: string, password: string) =>
      anonymous[on].post('/authenticate?method=password', { username, password });
    // Two failures on A and one on B are three: the right password is refused afterwards, on either.
    for (const on of [0, 1, 0]) assertStatus(await attempt(on, guarded.username, 'wrong-password'), 401, 'a guess');
    assertStatus(await attempt(1, guarded.username, guarded.password), 401, 'locked out, on B too');
    const locked = (await adminA.get(`/identities/${guarded.id}`)).body.data;
    assert.equal(typeof locked.disabledUntil, 'string', 'the identity is disabled until the lockout ends');
    // A username may fail five times at once, from all addresses and controllers together: the sixth is refused.
    const guessed = await createUser(adminA);
    for (const on of [0, 1, 0, 1, 0]) {
      assertStatus(await attempt(on, guessed.username, 'wrong-password'), 401, 'a guess');
    }
    const throttled = await attempt(1, guessed.username, guessed.password);
    assertStatus(throttled, 429, 'the sixth attempt, on B');
    assert.ok(Number(throttled.headers['retry-after']) > 0, 'with Retry-After');
    // Wrong MFA codes of one identity: five at once, from all its sessions on every controller; the sixth is refused.
    const mfaUser = await createUser(adminA);
    const secret = await enrolMfa(a, mfaUser);
    const partial = async (ctl: TestController) =>
      client(ctl, await client(ctl).login(mfaUser.username, mfaUser.password));
    const [onA, onB] = await Promise.all([partial(a), partial(b)]);
    const wrong = String((Number(await code(secret)) + 500_000) % 1_000_000).padStart(6, '0');
    for (const on of [onA, onB, onA, onB, onA]) {
      assertStatus(await on.post('/authenticate/mfa', { code: wrong }), 400, 'a wrong code');
    }
    assertStatus(await onB.post('/authenticate/mfa', { code: wrong }), 429, 'the sixth wrong code, on B');
  });

  it('posture reported to one controller is what the other evaluates, passing or failing', pgOnly, async () => {
    const [a, b] = running;
    const adminA = await a.admin();
    const tag = unique('posture');
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await adminA.post(path, body);
      assertStatus(res, 201, path);
      return res.body.data.id as string;
    };
    const user = await createUser(adminA);
    assertStatus(await adminA.patch(`/identities/${user.id}`, { roleAttributes: [tag] }), 200, 'the user tagged');
    const checkId = await created('/posture-checks', {
      name: `${tag}-domain`,
      typeId: 'DOMAIN',
      domains: ['corp'],
      roleAttributes: [tag],
    });
    const serviceId = await created('/services', {
      name: `${tag}-service`,
      roleAttributes: [tag],
      encryptionRequired: true,
    });
    const roles = { identityRoles: [`#${tag}`], serviceRoles: [`#${tag}`], edgeRouterRoles: [`#${tag}`] };
    await created('/service-policies', {
      name: `${tag}-dial`,
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: roles.identityRoles,
      serviceRoles: roles.serviceRoles,
      postureCheckRoles: [`#${tag}`],
    });
    await created('/edge-routers', { name: `${tag}-router`, roleAttributes: [tag] });
    const { identityRoles, serviceRoles, edgeRouterRoles } = roles;
    await created('/edge-router-policies', {
      name: `${tag}-routers`,
      semantic: 'AnyOf',
      identityRoles,
      edgeRouterRoles,
    });
    await created('/service-edge-router-policies', {
      name: `${tag}-routed`,
      semantic: 'AnyOf',
      serviceRoles,
      edgeRouterRoles,
    });
    const token = await client(a).login(user.username, user.password);
    const [onA, onB] = [client(a, token), client(b, token)];
    const dialOnB = () => onB.post('/sessions', { serviceId, type: 'Dial' });
    const report = (domain: string) => onA.post('/posture-response', { id: checkId, typeId: 'DOMAIN', domain });
    const before = await dialOnB();
    assertStatus(before, 409, 'nothing reported yet');
    assert.equal(before.body.error.code, 'INVALID_POSTURE');
    assertStatus(await report('corp'), 201, 'the domain reported to A');
    assertStatus(await dialOnB(), 201, 'a session created through B honours what A was told');
    assertStatus(await report('elsewhere'), 201, 'another domain reported to A');
    const failing = await dialOnB();
    assertStatus(failing, 409, 'the check failing on A fails on B');
    assert.equal(failing.body.error.code, 'INVALID_POSTURE');
    const adminB = new HttpHelper(b.url, b.caPem, adminA.token);
    const data = (await adminB.get(`/identities/${user.id}/posture-data`)).body.data;
    assert.equal(data.domain.domain, 'elsewhere', "B's management API serves what A was told");
    const refused = (await adminA.get(`/identities/${user.id}/failed-service-requests`)).body.data;
    assert.equal(refused.length, 2, "A's management API lists both requests B refused");
  });

  it('the posture sweep, run by one controller, reads what was reported to the other', pgOnly, async () => {
    // A policy requiring a domain and MFA that prompts on wake: the sweep evaluates its sessions every 15 s. The
    // identity does everything on the controller that does not run the sweeps; its session must outlive a sweep.
    const [a, b] = running;
    for (const start = Date.now(); !leading(a) && !leading(b) && Date.now() - start < 5_000; ) await sleep(50);
    const other = leading(a) ? b : a;
    const admin = await other.admin();
    const tag = unique('swept');
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await admin.post(path, body);
      assertStatus(res, 201, path);
      return res.body.data.id as string;
    };
    const user = await createUser(admin);
    assertStatus(await admin.patch(`/identities/${user.id}`, { roleAttributes: [tag] }), 200, 'the user tagged');
    const domainCheck = await created('/posture-checks', {
      name: `${tag}-domain`,
      typeId: 'DOMAIN',
      domains: ['corp'],
      roleAttributes: [tag],
    });
    await created('/posture-checks', { name: `${tag}-mfa`, typeId: 'MFA', promptOnWake: true, roleAttributes: [tag] });
    const serviceId = await created('/services', {
      name: `${tag}-svc`,
      roleAttributes: [tag],
      encryptionRequired: true,
    });
    const [identityRoles, serviceRoles, edgeRouterRoles] = [[`#${tag}`], [`#${tag}`], [`#${tag}`]];
    await created('/service-policies', {
      name: `${tag}-dial`,
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles,
      serviceRoles,
      postureCheckRoles: [`#${tag}`],
    });
    await created('/edge-routers', { name: `${tag}-router`, roleAttributes: [tag] });
    await created('/edge-router-policies', {
      name: `${tag}-routers`,
      semantic: 'AnyOf',
      identityRoles,
      edgeRouterRoles,
    });
    await created('/service-edge-router-policies', {
      name: `${tag}-routed`,
      semantic: 'AnyOf',
      serviceRoles,
      edgeRouterRoles,
    });
    const secret = await enrolMfa(other, user);
    const session = client(other, await client(other).login(user.username, user.password));
    assertStatus(await session.post('/authenticate/mfa', { code: await code(secret) }), 200, 'MFA passed');
    const report = { id: domainCheck, typeId: 'DOMAIN', domain: 'corp' };
    assertStatus(await session.post('/posture-response', report), 201, 'the domain reported');
    const made = await session.post('/sessions', { serviceId, type: 'Dial' });
    assertStatus(made, 201, 'a session, its posture passing');
    await sleep(16_000);
    const kept = await admin.get(`/sessions/${made.body.data.id}`);
    assertStatus(kept, 200, 'the session outlived a sweep run by the other controller');
  });

  it('a client spreading its requests over the controllers has one request budget, not one each', pgOnly, async () => {
    // Two more controllers with a small budget that hardly refills, stopped at the end (the sweeps test below
    // counts on the first two alone).
    const [a] = running;
    const small = { clientRateLimit: { burst: 6, perSecond: 0.01 }, adminPassword: a.adminPassword };
    const c = await startTestController(options('budget-c', small));
    try {
      const d = await startTestController(options('budget-d', small));
      try {
        const user = await createUser(await a.admin());
        const token = await client(c).login(user.username, user.password);
        const [onC, onD] = [client(c, token), client(d, token)];
        for (const on of [onC, onD, onC, onD, onC, onD]) {
          assertStatus(await on.get('/sessions'), 200, 'within the burst, three requests on each');
        }
        for (const on of [onC, onD]) {
          const refused = await on.get('/sessions');
          assertStatus(refused, 429, 'the seventh and eighth, on either controller');
          assert.equal(refused.body.error.code, 'RATE_LIMITED');
          assert.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After');
        }
      } finally {
        await d.close();
      }
    } finally {
      await c.close();
    }
  });

  it('one of them runs the sweeps; when it stops, another takes them over', pgOnly, async () => {
    const [a, b] = running;
    // Leadership is asked at start; give the second controller's first answer time to arrive.
    for (const start = Date.now(); !leading(a) && !leading(b) && Date.now() - start < 5_000; ) await sleep(50);
    await sleep(200);
    assert.equal([a, b].filter(leading).length, 1, 'exactly one of the two runs the background work');
    const [leader, other] = leading(a) ? [a, b] : [b, a];
    await leader.close();
    // The other asks again at its next sweep tick (15 s for the posture sweep).
    for (const start = Date.now(); !leading(other); await sleep(200)) {
      assert.ok(Date.now() - start < 25_000, `the other takes over the sweeps: ${other.logs.join(' | ')}`);
    }
  });

  it('a controller older than the schema refuses to start, naming the migration it lacks', pgOnly, async () => {
    const upgraded = await createTestDatabase({ migrated: true });
    try {
      const client = new pg.Client({ connectionString: upgraded.url });
      await client.connect();
      const future = MIGRATIONS[MIGRATIONS.length - 1].id + 1;
      await client.query('INSERT INTO schema_migrations (id, name, "appliedAt") VALUES ($1, $2, $3)', [
        future,
        'from-a-newer-version',
        new Date().toISOString(),
      ]);
      await client.end();
      const older = refusal('older', { storeUrl: upgraded.url });
      await assert.rejects(older, new RegExp(`schema is newer than this controller: it records migration ${future} `));
    } finally {
      await upgraded.drop();
    }
  });

  it('is refused while a controller that did not opt in serves the database', pgOnly, async () => {
    for (const ctl of running.splice(0)) await ctl.close();
    const alone = await startTestController(options('alone', { sharedDatabase: false }));
    running.push(alone);
    await assert.rejects(refusal('d', {}), /a controller started without --shared-database is using this/);
  });
});
