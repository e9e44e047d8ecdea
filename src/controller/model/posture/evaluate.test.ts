import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PostureData } from '../../client-state.js';
import type { Row } from '../../store/repository.js';
import { evaluateCheck, MFA_PROMPT_GRACE_SECONDS, NO_TIMEOUT } from './evaluate.js';

const check = (fields: Record<string, unknown>): Row =>
  ({ id: 'c1', createdAt: '', updatedAt: '', tags: {}, refNames: {}, ...fields }) as unknown as Row;
const empty = (): PostureData => ({ processes: new Map(), processesByPath: new Map(), apiSessions: new Map() });
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);

describe('evaluateCheck', () => {
  it('fails every kind without data, with no timeout for the kinds that have none', () => {
    for (const typeId of ['OS', 'DOMAIN', 'MAC', 'PROCESS', 'PROCESS_MULTI']) {
      const outcome = evaluateCheck(check({ typeId }), undefined, undefined, at(0));
      assert.deepEqual(
        [outcome.isPassing, outcome.timeout, outcome.timeoutRemaining],
        [false, NO_TIMEOUT, NO_TIMEOUT],
        typeId,
      );
    }
  });

  it('OS: a version that is not MAJOR.MINOR.PATCH fails a check with versions, passes one without', () => {
    const data = {
      ...empty(),
      os: { postureCheckId: 'c1', lastUpdatedAt: at(0), type: 'Windows', version: '10.0', build: '' },
    };
    assert.equal(
      evaluateCheck(
        check({ typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.0'] }] }),
        data,
        undefined,
        at(0),
      ).isPassing,
      false,
    );
    assert.equal(
      evaluateCheck(
        check({ typeId: 'OS', operatingSystems: [{ type: 'windows', versions: [] }] }),
        data,
        undefined,
        at(0),
      ).isPassing,
      true,
    );
  });

  it('PROCESS_MULTI AnyOf: one matching process is enough; none listed never passes', () => {
    const data = empty();
    data.processesByPath.set('/b', {
      postureCheckId: 'x',
      lastUpdatedAt: at(0),
      path: '/b',
      isRunning: true,
      binaryHash: '',
      signerFingerprints: ['ab'],
    });
    const processes = [
      { osType: 'Linux', path: '/a' },
      { osType: 'Linux', path: '/b', signerFingerprints: ['AB'] },
    ];
    assert.equal(
      evaluateCheck(check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes }), data, undefined, at(0)).isPassing,
      true,
    );
    assert.equal(
      evaluateCheck(check({ typeId: 'PROCESS_MULTI', semantic: 'AllOf', processes }), data, undefined, at(0)).isPassing,
      false,
    );
    assert.equal(
      evaluateCheck(check({ typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: [] }), data, undefined, at(0))
        .isPassing,
      false,
    );
  });

  it('MFA with no timeout: passes after MFA, -1 remaining; a prompting unlock fails it past the grace period', () => {
    const mfa = check({ typeId: 'MFA', timeoutSeconds: -1, promptOnUnlock: true, promptOnWake: false });
    const session = { mfaPassedAt: at(0), unlockedAt: at(100), wokenAt: at(100) };
    assert.deepEqual(Object.values(evaluateCheck(mfa, empty(), { mfaPassedAt: at(0) }, at(50))).slice(0, 3), [
      true,
      NO_TIMEOUT,
      NO_TIMEOUT,
    ]);
    assert.equal(
      evaluateCheck(mfa, empty(), session, at(100 + MFA_PROMPT_GRACE_SECONDS)).isPassing,
      true,
      'within the grace period',
    );
    const late = evaluateCheck(mfa, empty(), session, at(101 + MFA_PROMPT_GRACE_SECONDS));
    assert.deepEqual([late.isPassing, late.timeoutRemaining], [false, NO_TIMEOUT]);
    // A wake it does not prompt on changes nothing; MFA passed after the unlock passes again.
    assert.equal(evaluateCheck(mfa, empty(), { mfaPassedAt: at(0), wokenAt: at(100) }, at(10_000)).isPassing, true);
    assert.equal(evaluateCheck(mfa, empty(), { ...session, mfaPassedAt: at(200) }, at(10_000)).isPassing, true);
  });
});
