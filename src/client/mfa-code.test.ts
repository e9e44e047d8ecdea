import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../protocol/errors.js';
import { sendMfaCode } from './mfa-code.js';
import { createTestIO } from './testing/test-io.js';

/** A controller that accepts only `good`, recording every code it was sent. */
function controller(good: string) {
  const sent: string[] = [];
  const send = async (code: string) => {
    sent.push(code);
    if (code !== good) throw new ApiError('MFA_INVALID_TOKEN');
  };
  return { sent, send };
}

/** Answers a person types, in order; counts the questions. */
function typing(...answers: string[]) {
  const queue = [...answers];
  const person = {
    asked: 0,
    ask: async () => {
      person.asked++;
      return queue.shift() ?? 'nothing left to type';
    },
  };
  return person;
}

describe('sendMfaCode', () => {
  it('asks again after a wrong code typed, with a warning each time', async () => {
    const io = createTestIO();
    const ctrl = controller('333333');
    const person = typing('111111', '222222', '333333');
    await sendMfaCode(io, { given: undefined, ask: person.ask }, ctrl.send);
    assert.deepEqual(ctrl.sent, ['111111', '222222', '333333']);
    assert.equal(io.stderrText().match(/warning: That code was not accepted/g)?.length, 2);
  });

  it('gives up after the third wrong code typed, with the controller refusal', async () => {
    const ctrl = controller('444444');
    const person = typing('111111', '222222', '333333', '444444');
    await assert.rejects(
      sendMfaCode(createTestIO(), { given: undefined, ask: person.ask }, ctrl.send),
      (err: unknown) => err instanceof ApiError && err.code === 'MFA_INVALID_TOKEN',
    );
    assert.equal(person.asked, 3);
  });

  it('tries a code given up front once and never asks', async () => {
    const ctrl = controller('222222');
    const person = typing('222222');
    await assert.rejects(sendMfaCode(createTestIO(), { given: '111111', ask: person.ask }, ctrl.send), ApiError);
    assert.deepEqual(ctrl.sent, ['111111']);
    assert.equal(person.asked, 0);
  });

  it('does not ask again after a failure that is not a wrong code', async () => {
    const person = typing('111111', '222222');
    const throttled = async () => {
      throw new ApiError('SERVER_TOO_MANY_REQUESTS');
    };
    await assert.rejects(
      sendMfaCode(createTestIO(), { given: undefined, ask: person.ask }, throttled),
      (err: unknown) => err instanceof ApiError && err.status === 429,
    );
    assert.equal(person.asked, 1);
  });
});
