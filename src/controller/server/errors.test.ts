// Store failures that are not the client's fault become 503 STORE_UNAVAILABLE with Retry-After, whichever database
// raised them; anything unknown stays a 500.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreUnavailableError } from '../store/driver.js';
import { STORE_RETRY_AFTER_SECONDS, toApiError } from './errors.js';

const failure = (code: string) => Object.assign(new Error(`failure ${code}`), { code });

describe('toApiError: the store failing', () => {
  const unavailable: Array<[string, Error, RegExp]> = [
    ['PostgreSQL ending the session (57P01)', failure('57P01'), /cannot be reached/],
    ['PostgreSQL starting up (57P03)', failure('57P03'), /cannot be reached/],
    ['a connection failure (08006)', failure('08006'), /cannot be reached/],
    ['a refused connection', failure('ECONNREFUSED'), /cannot be reached/],
    ['too many connections (53300)', failure('53300'), /out of connections/],
    ['a disk full (53100)', failure('53100'), /full/],
    ['a deadlock retried in vain (40P01)', failure('40P01'), /conflicting writes/],
    ['a serialisation failure retried in vain (40001)', failure('40001'), /conflicting writes/],
    ['SQLite locked by another process', failure('SQLITE_BUSY'), /locked/],
    ['a connection the driver saw fail', new StoreUnavailableError('the connection to the database failed'), /failed/],
  ];
  for (const [what, err, message] of unavailable) {
    it(`${what}: 503 STORE_UNAVAILABLE with Retry-After`, () => {
      const api = toApiError(err);
      assert.equal(api.status, 503);
      assert.equal(api.code, 'STORE_UNAVAILABLE');
      assert.match(api.message, message);
      assert.equal((api as { retryAfterSeconds?: number }).retryAfterSeconds, STORE_RETRY_AFTER_SECONDS);
    });
  }

  it('a constraint the code did not expect, or any unknown error: 500 UNHANDLED', () => {
    for (const err of [failure('23503'), new Error('bug')]) assert.equal(toApiError(err).code, 'UNHANDLED');
  });
});
