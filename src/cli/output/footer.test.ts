import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasMore, pageFooter } from './footer.js';

describe('pageFooter', () => {
  it('says which rows are shown and how to get the next page', () => {
    assert.equal(pageFooter({ limit: 10, offset: 0, totalCount: 23 }, 10), 'showing 1-10 of 23 (next page: --offset 10, or --all)');
    assert.equal(pageFooter({ limit: 10, offset: 20, totalCount: 23 }, 3), 'showing 21-23 of 23');
    assert.equal(pageFooter({ limit: 10, offset: 40, totalCount: 23 }, 0), 'no rows at offset 40 (23 in total)');
  });

  it('tells whether rows remain beyond the page', () => {
    assert.equal(hasMore({ limit: 10, offset: 0, totalCount: 23 }, 10), true);
    assert.equal(hasMore({ limit: 10, offset: 20, totalCount: 23 }, 3), false);
  });
});
