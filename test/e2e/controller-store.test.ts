// `ctl controller start --store`: a store URL that cannot be used is a one-line error (never a stack trace, never
// "a bug in ctl"), exit 2 when the URL itself is wrong and 1 when the store cannot be reached, and nothing is left
// running; on PostgreSQL a second controller on the same
// database is refused while the first runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CTL_BIN, ctlEnv } from '../helpers/cli.js';
import { startTestController } from '../helpers/controller.js';
import { createTestDatabase, PG_URL_VARIABLE } from '../helpers/postgres.js';
import { freePort } from '../helpers/ports.js';
import { REPO_ROOT } from '../helpers/spec.js';

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Runs `ctl controller start --store URL` until it exits (it must: the store is unusable) or 60 s pass. */
async function startWithStore(store: string): Promise<{ code: number | null; stderr: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-store-'));
  dirs.push(dir);
  const child = spawn(
    process.execPath,
    [
      CTL_BIN,
      'controller',
      'start',
      '--data-dir',
      path.join(dir, 'data'),
      '--port',
      String(await freePort()),
      '--store',
      store,
    ],
    {
      cwd: REPO_ROOT,
      env: ctlEnv({ env: { CTL_ADMIN_PASSWORD: 'Admin-password-1' } }),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(guard);
  return { code, stderr };
}

function assertPlainFailure(r: { code: number | null; stderr: string }, message: RegExp, code = 1) {
  assert.equal(r.code, code, r.stderr);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /bug in ctl|^\s+at /m, 'no stack trace, not called a bug');
}

describe('ctl controller start --store', () => {
  it('refuses a URL that is not a store URL as a usage error (exit 2)', async () => {
    assertPlainFailure(await startWithStore('mysql://u@h/db'), /unsupported store 'mysql:\/\/'/, 2);
    assertPlainFailure(await startWithStore('postgres://u@bad host/db'), /is not a store URL/, 2);
  });

  it('says when the server cannot be reached, and redacts the password', async () => {
    const r = await startWithStore(`postgres://ctl:s3cret-pass@127.0.0.1:${await freePort()}/ctl`);
    assertPlainFailure(r, /cannot connect to the store .*connection refused/);
    assert.doesNotMatch(r.stderr, /s3cret-pass/, 'the password is not echoed');
  });

  const pgUrl = process.env[PG_URL_VARIABLE];
  it('says when the credentials are wrong (PostgreSQL)', {
    skip: pgUrl ? false : `${PG_URL_VARIABLE} is not set`,
  }, async () => {
    const url = new URL(pgUrl!);
    url.password = 'wrong-password';
    assertPlainFailure(await startWithStore(url.toString()), /authentication failed/);
  });

  it('refuses a second controller on a database one is using (PostgreSQL)', {
    skip: pgUrl ? false : `${PG_URL_VARIABLE} is not set`,
  }, async () => {
    const db = await createTestDatabase();
    const first = await startTestController({ storeUrl: db.url });
    try {
      assertPlainFailure(await startWithStore(db.url), /another controller is already using this database/);
    } finally {
      await first.close();
      await db.drop();
    }
  });
});
