import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionActivityRows } from '../store/session-activity-rows.js';
import { SessionActivity } from './session-activity.js';

/** Rows that record each batch written, and fail the first `failures` writes. */
function recordingRows(failures: number) {
  const batches: Array<Map<string, string>> = [];
  let failed = 0;
  const rows = {
    async write(latest: ReadonlyMap<string, string>) {
      if (failed++ < failures) throw new Error('the database is away');
      batches.push(new Map(latest));
    },
  } as unknown as SessionActivityRows;
  return { rows, batches };
}

const iso = (ms: number) => new Date(ms).toISOString();

test('each session is written once per batch, with its latest time, and nothing when none was seen', async () => {
  const { rows, batches } = recordingRows(0);
  const activity = new SessionActivity(rows);
  activity.seen('a', 2_000);
  activity.seen('a', 1_000);
  activity.seen('b', 1_500);
  assert.equal(activity.unwritten('a'), 2_000);
  await activity.write();
  await activity.write();
  assert.deepEqual(batches, [
    new Map([
      ['a', iso(2_000)],
      ['b', iso(1_500)],
    ]),
  ]);
  assert.equal(activity.unwritten('a'), undefined, 'written: the database has it');
});

test('a batch that fails to be written is kept, and written with the next', async () => {
  const { rows, batches } = recordingRows(1);
  const activity = new SessionActivity(rows);
  activity.seen('a', 1_000);
  await assert.rejects(activity.write(), /away/);
  assert.equal(activity.unwritten('a'), 1_000, 'still counted by this process');
  activity.seen('b', 3_000);
  await activity.write();
  assert.deepEqual(batches, [
    new Map([
      ['a', iso(1_000)],
      ['b', iso(3_000)],
    ]),
  ]);
});
