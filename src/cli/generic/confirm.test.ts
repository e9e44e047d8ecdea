import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeclinedError } from '../../console/errors.js';
import { testDeps } from '../testing/test-deps.js';
import { confirmOrDecline } from './confirm.js';

describe('confirmOrDecline', () => {
  const opts = { action: 'reverting authenticator a1', question: 'Revert authenticator a1?' };

  it('goes on with --yes, asking nothing', async () => {
    const deps = testDeps({ tty: true });
    await confirmOrDecline(deps, { ...opts, yes: true });
    assert.deepEqual(deps.prompts, []);
  });

  it('asks at a terminal, and goes on only on yes', async () => {
    const yes = testDeps({ tty: true, answers: { confirm: [true] } });
    await confirmOrDecline(yes, { ...opts, yes: false });
    assert.deepEqual(yes.prompts, ['Revert authenticator a1?']);
    const no = testDeps({ tty: true, answers: { confirm: [false] } });
    await assert.rejects(confirmOrDecline(no, { ...opts, yes: false }), /nothing was changed/);
  });

  it('declines where nobody can be asked, naming --yes', async () => {
    await assert.rejects(confirmOrDecline(testDeps({ tty: false }), { ...opts, yes: false }), (err: unknown) => {
      assert.ok(err instanceof DeclinedError);
      assert.equal(err.message, 'reverting authenticator a1 needs confirmation');
      assert.deepEqual(err.details, ['pass --yes (-y)']);
      return true;
    });
  });
});
