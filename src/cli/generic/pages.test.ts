import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiClient, ListQuery } from '../../client/types.js';
import { MAX_LIMIT, MAX_OFFSET } from '../../protocol/paging.js';
import { everyPage } from './pages.js';

/** A list of `total` numbered rows, paged as the controller pages: and every query it was asked. */
function rowsOf(total: number) {
  const asked: ListQuery[] = [];
  const api = {
    async list(_path: string, query: ListQuery = {}) {
      asked.push(query);
      const offset = query.offset ?? 0;
      const data = Array.from(
        { length: Math.max(0, Math.min(query.limit ?? 10, total - offset)) },
        (_, i) => offset + i,
      );
      return { data, meta: { pagination: { limit: query.limit ?? 10, offset, totalCount: total } } };
    },
  } as unknown as ApiClient;
  return { api, asked };
}

describe('everyPage', () => {
  it('reads page after page at the largest size, keeping the query, until the total', async () => {
    const { api, asked } = rowsOf(2 * MAX_LIMIT + 7);
    const { rows, totalCount } = await everyPage<number>(api, '/x', { filter: 'a = 1' }, {}, () =>
      assert.fail('not beyond'),
    );
    assert.equal(totalCount, 2 * MAX_LIMIT + 7);
    assert.deepEqual(
      rows,
      Array.from({ length: totalCount }, (_, i) => i),
    );
    assert.deepEqual(
      asked.map((q) => [q.filter, q.limit, q.offset]),
      [0, MAX_LIMIT, 2 * MAX_LIMIT].map((o) => ['a = 1', MAX_LIMIT, o]),
    );
  });

  it('stops past the last offset the controller serves, and says how many rows came', async () => {
    const { api } = rowsOf(MAX_OFFSET + 3 * MAX_LIMIT);
    let told: number | undefined;
    const { rows } = await everyPage<number>(api, '/x', {}, {}, (n) => (told = n));
    assert.equal(told, rows.length);
    assert.ok(rows.length > MAX_OFFSET && rows.length < MAX_OFFSET + 3 * MAX_LIMIT, String(rows.length));
  });

  it('an empty list is one request', async () => {
    const { api, asked } = rowsOf(0);
    assert.deepEqual((await everyPage(api, '/x', {}, {}, () => assert.fail('not beyond'))).rows, []);
    assert.equal(asked.length, 1);
  });
});
