// Sending an MFA code, the one way for every command that needs one (`ctl login`, the `ctl mfa` verbs).
import type { IO } from '../console/io.js';
import { ApiError } from '../protocol/errors.js';

/** How many codes a person may type before the command gives up (the controller throttles guessing too). */
const ATTEMPTS = 3;

/** A refused code: MFA_INVALID_TOKEN, or another 400 (a code that is not even of the right form). */
const wrongCode = (err: unknown) => err instanceof ApiError && (err.code === 'MFA_INVALID_TOKEN' || err.status === 400);

/**
 * Sends `given`, else a code `ask` gets from the person at the terminal. A code asked for is asked again after a
 * wrong one, up to three codes in all: a person may mistype or catch the end of a 30-second step. A code given up
 * front (a flag, stdin) is tried once, since asking again would get the same code. Whatever else fails is thrown.
 */
export async function sendMfaCode(
  io: IO,
  code: { given: string | undefined; ask: () => Promise<string> },
  send: (code: string) => Promise<unknown>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await send(code.given ?? (await code.ask()));
      return;
    } catch (err) {
      if (!wrongCode(err) || code.given !== undefined || attempt >= ATTEMPTS) throw err;
      io.warn('That code was not accepted (codes change every 30 seconds, and each works once). Try again.');
    }
  }
}
