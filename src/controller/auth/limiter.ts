import { ApiError } from '../../protocol/errors.js';

/**
 * Bounds the password checks in flight. Each one costs 32 MiB and tens of milliseconds of scrypt, and anyone can
 * ask for one, so without a bound a burst of logins could exhaust memory. Checks beyond `concurrency` wait in
 * line; beyond `queue` waiting they are refused with 429 SERVER_TOO_MANY_REQUESTS, which clients retry.
 */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.queue) {
        throw new ApiError('SERVER_TOO_MANY_REQUESTS', {
          message: 'too many authentication requests at once; try again shortly',
        });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
