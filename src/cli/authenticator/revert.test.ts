import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DeclinedError, UsageError } from '../../console/errors.js';
import { fakeApi } from '../testing/fake-api.js';
import { testDeps } from '../testing/test-deps.js';
import { runAuthenticatorRevert } from './index.js';

describe('ctl authenticator revert', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctl-revert-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const asking = (answer: boolean) => testDeps({ api: fakeApi({}), tty: true, answers: { confirm: [answer] } });

  it('refuses a mistake in its flags, or a --jwt-output file in the way, before it asks', async () => {
    const flags = asking(true);
    const both = { id: 'a1', expiresIn: 60, expiresAt: '2030-01-01T00:00:00Z' };
    await assert.rejects(runAuthenticatorRevert(both, flags), UsageError);
    assert.deepEqual(flags.prompts, []);

    const taken = join(dir, 'taken.jwt');
    writeFileSync(taken, 'kept');
    const file = asking(true);
    await assert.rejects(runAuthenticatorRevert({ id: 'a1', jwtOutput: taken }, file), /already exists/);
    assert.deepEqual(file.prompts, []);
  });

  it('declined at the prompt: nothing is sent, and no file is left', async () => {
    const api = fakeApi({});
    const deps = testDeps({ api, tty: true, answers: { confirm: [false] } });
    const fresh = join(dir, 'declined.jwt');
    await assert.rejects(runAuthenticatorRevert({ id: 'a1', jwtOutput: fresh }, deps), DeclinedError);
    assert.equal(deps.prompts.length, 1);
    assert.deepEqual(api.calls, []);
    assert.throws(() => statSync(fresh), /ENOENT/);
  });
});
