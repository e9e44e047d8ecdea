// The tests' own TOTP against RFC 6238 appendix B (SHA-1 rows, 8 digits) and RFC 4648's base32 examples.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32Decode, totpAt } from './totp.js';

describe('test TOTP generator', () => {
  it('matches the SHA-1 vectors of RFC 6238 appendix B', () => {
    const key = Buffer.from('12345678901234567890', 'ascii');
    const vectors: Array<[number, string]> = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, expected] of vectors) assert.equal(totpAt(key, seconds, 8), expected, `T=${seconds}`);
  });

  it('decodes base32 as RFC 4648 section 10 does', () => {
    assert.equal(base32Decode('MZXW6YTBOI').toString(), 'foobar');
    assert.equal(base32Decode('MZXW6===').toString(), 'foo');
    assert.equal(base32Decode('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ').toString(), '12345678901234567890');
  });
});
