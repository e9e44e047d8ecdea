import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { reserveJwtFiles } from './jwt-dir.js';
import { fileKind } from '../testing/kinds.js';
import type { Plan } from './plan.js';

const create = (kind: string, name: string) => ({
  action: 'create' as const,
  kind: fileKind(kind),
  name,
  fields: {},
  entity: { name },
});

describe('--jwt-dir', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-jwt-dir-'));
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  it('makes a missing directory (0700) for the JWTs of new identities and routers', async () => {
    const dir = path.join(tmp, 'enrol', 'lab');
    const plan: Plan = { changes: [create('identity', 'laptop'), create('edge-router', 'er-1')] };
    const files = await reserveJwtFiles(plan, dir, false);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.deepEqual((await readdir(dir)).sort(), ['er-1.jwt', 'laptop.jwt']);
    for (const { file } of files.values()) await file.abandon();
  });

  it('makes nothing when no JWT is to be written, and refuses a file in the way before any request', async () => {
    const idle = path.join(tmp, 'idle');
    await reserveJwtFiles({ changes: [create('service', 'web')] }, idle, false);
    await assert.rejects(stat(idle), { code: 'ENOENT' });
    const blocked = path.join(tmp, 'a-file');
    await writeFile(blocked, '');
    await assert.rejects(
      reserveJwtFiles({ changes: [create('identity', 'laptop')] }, blocked, false),
      (err: unknown) => err instanceof UsageError && /cannot make the --jwt-dir directory/.test(err.message),
    );
    // Said in words, without node's call and path, which the message names already.
    await assert.rejects(
      reserveJwtFiles({ changes: [create('identity', 'laptop')] }, path.join(blocked, 'lab'), false),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message ===
          `cannot make the --jwt-dir directory ${path.join(blocked, 'lab')}: ` +
            'a part of its path is not a directory',
    );
  });
});
