// A replace of a kind that hands out an enrollment JWT (identities, edge routers) makes a new entity that must enrol
// again: the plan says so, as text and as data, and --jwt-dir claims its JWT file as it does for a create. No field
// of those kinds is fixed after create today, so no end-to-end run reaches this: the plan is made by hand here.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { reserveJwtFiles } from './jwt-dir.js';
import { fileKind } from '../testing/kinds.js';
import type { Plan } from './plan.js';
import { planData, planLines } from './present.js';

const identity = fileKind('identity');
const plan: Plan = {
  changes: [
    {
      action: 'replace',
      kind: identity,
      name: 'laptop',
      fields: { isAdmin: { from: false, to: true } },
      reason: 'isAdmin cannot change after create',
      entity: { name: 'laptop', isAdmin: true },
      id: 'old',
    },
  ],
};

describe('a replace of an entity that enrols', () => {
  it('says in the plan that it must enrol again', () => {
    const line =
      '-/+ replace identity "laptop": isAdmin false → true (isAdmin cannot change after create; it must ' +
      'enrol again)';
    assert.equal(planLines(plan)[0], line);
    assert.equal(planData(plan).changes[0].enrolsAgain, true);
  });

  it('claims its --jwt-dir file before anything is written', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-replace-jwt-'));
    try {
      const files = await reserveJwtFiles(plan, dir, false);
      assert.deepEqual(
        [...files.values()].map((f) => path.basename(f.path)),
        ['laptop.jwt'],
      );
      assert.deepEqual(await readdir(dir), ['laptop.jwt']);
      for (const { file } of files.values()) await file.abandon();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
