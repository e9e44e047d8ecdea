// Controllers started at the same moment on an empty database: the schema, the built-in rows and the default
// admin are made once, by whichever comes first, and every one of them starts and serves.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestController, storeUnderTest, type TestController } from '../helpers/controller.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const postgres = storeUnderTest() === 'postgres';
const ROUNDS = 4;

describe('a simultaneous first start of two controllers', { skip: !postgres && 'PostgreSQL only' }, () => {
  let tmp: string;
  let keyFile: string;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-first-start-'));
    keyFile = await writeTestKeyFile(tmp);
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  for (let round = 1; round <= ROUNDS; round++) {
    it(`both start and serve, with one default admin and the built-in rows once (round ${round})`, async () => {
      const database = await createTestDatabase();
      const adminPassword = `first-start-${round}`;
      const start = (name: string) =>
        startTestController({
          dataDir: path.join(tmp, `${round}-${name}`),
          storeUrl: database.url,
          pkiKeyFile: keyFile,
          sharedDatabase: true,
          adminPassword,
        });
      const started = await Promise.allSettled([start('a'), start('b')]);
      const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      try {
        assert.deepEqual(
          started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started')),
          ['started', 'started'],
        );
        for (const ctl of running as TestController[]) {
          const admin = await ctl.admin();
          const admins = (await admin.get('/identities', { query: { filter: 'isDefaultAdmin = true' } })).body;
          assert.equal(admins.meta.pagination.totalCount, 1, 'one default admin');
          const policies = (await admin.get('/auth-policies')).body.data.map((p: { id: string }) => p.id);
          assert.deepEqual(policies, ['default'], 'the built-in auth policy once');
        }
      } finally {
        for (const ctl of running) await ctl.close();
        await database.drop();
      }
    });
  }
});
