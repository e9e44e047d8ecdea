import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { runInTurn } from './background.js';

describe('runInTurn', () => {
  it('runs a task only while this controller leads, and logs when that changes', async () => {
    let leads = false;
    let runs = 0;
    const logs: string[] = [];
    const store = { leadsBackgroundWork: async () => leads };
    const task = { name: 'test sweep', intervalMs: 5, run: async () => void runs++ };
    const background = runInTurn(store, [task], (line) => logs.push(line));
    try {
      await sleep(40);
      assert.equal(runs, 0, 'another controller leads: nothing runs here');
      assert.deepEqual(logs, []);
      leads = true;
      await sleep(40);
      assert.ok(runs > 0, 'leading: the task runs');
      assert.deepEqual(logs, ["background: this controller runs the database's test sweep"]);
      leads = false;
      await sleep(20);
      const stopped = runs;
      await sleep(40);
      assert.equal(runs, stopped, 'no longer leading: nothing more runs');
      assert.match(logs[1], /no longer runs the background work/);
    } finally {
      background.stop();
    }
  });

  it('logs a failed run and keeps running', async () => {
    const logs: string[] = [];
    let runs = 0;
    const failing = {
      name: 'failing sweep',
      intervalMs: 5,
      run: async () => {
        runs++;
        throw new Error('boom');
      },
    };
    const background = runInTurn({ leadsBackgroundWork: async () => true }, [failing], (line) => logs.push(line));
    await sleep(40);
    background.stop();
    assert.ok(runs >= 2, 'a failure does not stop the next run');
    assert.ok(logs.includes('failing sweep failed: Error: boom'));
  });
});
