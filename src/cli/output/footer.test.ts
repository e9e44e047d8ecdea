import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestIO } from '../../client/testing/test-io.js';
import { hasMore, pageFooter, printFooter } from './footer.js';

describe('pageFooter', () => {
  it('says which rows are shown and how to get the next page', () => {
    assert.equal(
      pageFooter({ limit: 10, offset: 0, totalCount: 23 }, 10),
      'showing 1-10 of 23 (next page: --offset 10, or --all)',
    );
    assert.equal(pageFooter({ limit: 10, offset: 20, totalCount: 23 }, 3), 'showing 21-23 of 23');
    assert.equal(pageFooter({ limit: 10, offset: 40, totalCount: 23 }, 0), 'no rows at offset 40 (23 in total)');
  });

  it('gives the next page of the size shown: a --limit other than the default goes with its --offset', () => {
    assert.equal(
      pageFooter({ limit: 5, offset: 5, totalCount: 23 }, 5),
      'showing 6-10 of 23 (next page: --limit 5 --offset 10, or --all)',
    );
    assert.equal(pageFooter({ limit: 5, offset: 20, totalCount: 23 }, 3), 'showing 21-23 of 23');
  });

  it('tells whether rows remain beyond the page', () => {
    assert.equal(hasMore({ limit: 10, offset: 0, totalCount: 23 }, 10), true);
    assert.equal(hasMore({ limit: 10, offset: 20, totalCount: 23 }, 3), false);
  });
});

describe('printFooter', () => {
  const footerOf = (page: { limit: number; offset: number; totalCount: number }, shown: number, human: boolean) => {
    const io = createTestIO();
    printFooter(io, page, shown, human);
    return io.stderrText();
  };

  it('goes under every table with rows, and in machine formats only when rows remain', () => {
    assert.equal(footerOf({ limit: 10, offset: 0, totalCount: 3 }, 3, true), 'showing 1-3 of 3\n');
    assert.equal(footerOf({ limit: 10, offset: 0, totalCount: 3 }, 3, false), '');
    assert.equal(
      footerOf({ limit: 1, offset: 0, totalCount: 3 }, 1, false),
      'showing 1-1 of 3 (next page: --limit 1 --offset 1, or --all)\n',
    );
    assert.equal(footerOf({ limit: 10, offset: 0, totalCount: 0 }, 0, true), '');
  });
});
