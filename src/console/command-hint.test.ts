import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { profileSelection, shellQuote, suggestCommand } from './command-hint.js';

describe('suggestCommand', () => {
  it('appends the options that select the same profile and data directory, shell-quoted', () => {
    assert.equal(suggestCommand('ctl mfa enable'), 'ctl mfa enable');
    assert.equal(suggestCommand('ctl mfa enable', { profile: 'qs2' }), 'ctl mfa enable --profile qs2');
    const stop = suggestCommand('ctl controller stop', { dataDir: "/tmp/my ctrl's" });
    assert.equal(stop, `ctl controller stop --data-dir '/tmp/my ctrl'\\''s'`);
  });

  it('names the profile only when a bare command would pick another one', () => {
    assert.deepEqual(profileSelection('qs2', 'lab'), { profile: 'qs2' });
    assert.deepEqual(profileSelection('qs2', undefined), { profile: 'qs2' });
    assert.deepEqual(profileSelection('qs2', 'qs2'), {});
    assert.deepEqual(profileSelection('default', undefined), {});
  });

  it('leaves plain words bare and quotes the rest so that a shell reads them back unchanged', () => {
    assert.equal(shellQuote('https://ctrl.example.com:1280'), 'https://ctrl.example.com:1280');
    assert.equal(shellQuote('a b'), "'a b'");
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('$(rm -rf ~)'), "'$(rm -rf ~)'");
  });
});
