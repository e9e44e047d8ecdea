// A database that fails under the controller is a clear 503 (never a 500 or a stack trace), and what was
// acknowledged before stays readable. SQLite's page limit stands in for a full disk.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from 'better-sqlite3';
import { createTestApp, type Reply, type TestApp } from '../helpers/in-process.js';

describe('a full database (sqlite)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('sqlite');
  });
  after(async () => t?.close());

  it('answers 503 STORE_UNAVAILABLE saying so, and keeps serving reads', async () => {
    const kept = await t.admin.request('POST', '/identities', {
      json: { name: 'before-full', type: 'User', isAdmin: false },
    });
    assert.equal(kept.status, 201);
    // Reached through the private driver: this simulates the machine, not a client.
    const db = (t.app.runtime.store as unknown as { driver: { db: Database } }).driver.db;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    let full: Reply | undefined;
    for (let i = 0; i < 200 && !full; i++) {
      const res = await t.admin.request('POST', '/identities', {
        json: { name: `filler-${i}`, type: 'User', isAdmin: false, appData: { pad: 'x'.repeat(8000) } },
      });
      assert.notEqual(res.status, 500, JSON.stringify(res.body));
      if (res.status !== 201) full = res;
    }
    assert.ok(full, 'the database filled up');
    assert.equal(full.status, 503);
    assert.equal(full.body.error.code, 'STORE_UNAVAILABLE');
    assert.match(full.body.error.message, /full/);
    assert.match(String(full.headers?.['retry-after']), /^\d+$/, 'a 503 of the store says when to try again');
    const read = await t.admin.request('GET', `/identities/${kept.body.data.id}`);
    assert.equal(read.status, 200);
  });
});
