import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shortDescription } from './short-description.js';

describe('descriptions beside candidates', () => {
  it('keeps the first clause, on one line', () => {
    assert.equal(
      shortDescription('Renew the certificate\n  with a new key: the old one works'),
      'Renew the certificate with a new key',
    );
    assert.equal(shortDescription('an OS, comma-separated; repeat for each OS'), 'an OS, comma-separated');
    assert.equal(shortDescription('Print it. Then exit'), 'Print it');
    assert.equal(shortDescription('List identities'), 'List identities');
  });

  it('ends no clause inside parentheses nor at an abbreviation', () => {
    assert.equal(shortDescription('versions (none: any version); repeat'), 'versions (none: any version)');
    assert.equal(
      shortDescription('after this long, e.g. 10s, 2m (default 30s)'),
      'after this long, e.g. 10s, 2m (default 30s)',
    );
  });
});
