// The controller's TOTP (otplib) against the tests' own RFC 6238 implementation: the window of ±2 steps, the
// replay bound, the code format; recovery codes and how they are matched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base32Decode, totpAt } from '../../../test/helpers/totp.js';
import {
  RECOVERY_CODE_COUNT,
  matchRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  provisioningUrl,
  totpStep,
} from './totp.js';

describe('TOTP', () => {
  const secret = newTotpSecret();
  const key = base32Decode(secret);
  // The middle of a step, so that "now" is unambiguous.
  const now = new Date(Math.floor(Date.now() / 30_000) * 30_000 + 15_000);
  const step = Math.floor(now.getTime() / 30_000);
  const codeAt = (offset: number) => totpAt(key, (step + offset) * 30);

  it('makes 160-bit base32 secrets', () => {
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(key.length, 20);
  });

  it('accepts codes of up to two steps either side, and says which step', () => {
    for (const offset of [-2, -1, 0, 1, 2])
      assert.equal(totpStep(secret, codeAt(offset), now, 0), step + offset, `offset ${offset}`);
    for (const offset of [-4, -3, 3, 4]) {
      // A code of a step outside the window may by chance equal one inside it (1 in 200,000): then it is that one.
      const code = codeAt(offset);
      if ([-2, -1, 0, 1, 2].some((o) => codeAt(o) === code)) continue;
      assert.equal(totpStep(secret, code, now, 0), undefined, `offset ${offset}`);
    }
  });

  it('refuses a code of the last accepted step or an earlier one (replays)', () => {
    assert.equal(totpStep(secret, codeAt(0), now, step), undefined);
    assert.equal(totpStep(secret, codeAt(-1), now, step), undefined);
    assert.equal(totpStep(secret, codeAt(1), now, step), step + 1);
  });

  it('takes only six digits', () => {
    for (const code of ['', '12345', '1234567', 'abcdef', ` ${codeAt(0)}`, `${codeAt(0).slice(0, 5)}x`]) {
      assert.equal(totpStep(secret, code, now, 0), undefined, JSON.stringify(code));
    }
  });

  it('builds the otpauth URL an authenticator app reads', () => {
    const url = new URL(provisioningUrl('ctrl.example.com', 'alice', secret));
    assert.equal(url.protocol, 'otpauth:');
    assert.equal(url.host, 'totp');
    assert.equal(decodeURIComponent(url.pathname), '/ctrl.example.com:alice');
    assert.equal(url.searchParams.get('secret'), secret);
    assert.equal(url.searchParams.get('issuer'), 'ctrl.example.com');
  });
});

describe('recovery codes', () => {
  it('are 20 distinct base32 codes of six characters, never all digits', () => {
    for (let round = 0; round < 20; round++) {
      const codes = newRecoveryCodes();
      assert.equal(codes.length, RECOVERY_CODE_COUNT);
      for (const c of codes) assert.match(c, /^(?=.*[A-Z])[A-Z2-7]{6}$/);
    }
  });

  it('match one of the codes given, without regard to case or surrounding space, and nothing else', () => {
    const codes = newRecoveryCodes().slice(0, 4);
    assert.equal(matchRecoveryCode(codes[2], codes), 2);
    assert.equal(matchRecoveryCode(` ${codes[1].toLowerCase()} `, codes), 1);
    assert.equal(matchRecoveryCode(codes[0].slice(0, 5), codes), -1, 'a prefix');
    assert.equal(matchRecoveryCode(`${codes[0]}A`, codes), -1, 'a longer code');
    assert.equal(matchRecoveryCode('not a code', codes), -1);
    assert.equal(matchRecoveryCode(codes[3], []), -1, 'none left');
  });
});
