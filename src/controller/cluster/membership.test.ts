import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../store/store.js';
import {
  HEARTBEAT_INTERVAL_MS,
  loadOrCreateControllerId,
  membershipOf,
  OFFLINE_AFTER_MS,
  startHeartbeat,
} from './membership.js';

const START = new Date('2030-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(START.getTime() + ms);

describe('membership', () => {
  it('shows a controller online until OFFLINE_AFTER_MS without a heartbeat; the one answering always', () => {
    const row = { id: 'other', lastJoinedAt: at(-60_000).toISOString(), lastSeenAt: START.toISOString() };
    assert.equal(membershipOf(row, 'self', at(OFFLINE_AFTER_MS - 1)).isOnline, true);
    assert.equal(membershipOf(row, 'self', at(OFFLINE_AFTER_MS)).isOnline, false);
    assert.equal(membershipOf({ ...row, id: 'self' }, 'self', at(10 * OFFLINE_AFTER_MS)).isOnline, true);
    // A row from before heartbeats: last seen when it started.
    const older = membershipOf({ id: 'old', lastJoinedAt: START.toISOString(), lastSeenAt: null }, 'self', at(1000));
    assert.deepEqual(older, { isOnline: true, lastSeenAt: START.toISOString() });
  });

  it('refreshes lastSeenAt every HEARTBEAT_INTERVAL_MS, and logs a failing beat once', async () => {
    const store = await Store.open({ sqlite: ':memory:' });
    const repo = store.repo('controller');
    const started = START.toISOString();
    const row = { name: 'c', certPem: 'x', fingerprint: 'f', lastJoinedAt: started, lastSeenAt: started };
    await repo.insert(row, { id: 'me', now: started });
    mock.timers.enable({ apis: ['setInterval'] });
    const logs: string[] = [];
    let now = START;
    const beat = (lastSeenAt: string) => repo.update('me', { lastSeenAt }, lastSeenAt);
    const heartbeat = startHeartbeat(beat, { clock: () => now, log: (line) => logs.push(line) });
    try {
      now = at(HEARTBEAT_INTERVAL_MS);
      mock.timers.tick(HEARTBEAT_INTERVAL_MS);
      await waitFor(async () => (await repo.get('me')).lastSeenAt === now.toISOString());
      await repo.delete('me');
      for (let beat = 2; beat <= 3; beat++) {
        now = at(beat * HEARTBEAT_INTERVAL_MS);
        mock.timers.tick(HEARTBEAT_INTERVAL_MS);
        await waitFor(async () => logs.length > 0);
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(logs.length, 1, logs.join('\n'));
      assert.match(logs[0], /heartbeat failed/);
    } finally {
      heartbeat.stop();
      mock.timers.reset();
      await store.close();
    }
  });

  it('keeps the id it was first given in the data directory', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ctl-membership-'));
    try {
      assert.equal(await loadOrCreateControllerId(dir, 'first'), 'first');
      assert.equal(await loadOrCreateControllerId(dir, 'second'), 'first');
      assert.equal((await readFile(path.join(dir, 'controller-id'), 'utf8')).trim(), 'first');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail('the condition never held');
}
