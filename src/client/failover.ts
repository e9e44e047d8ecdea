// When a request that one controller of a network could not serve may be made again on the next one. Controllers
// sharing a database serve the same network and accept the same session token, so only one thing can go wrong:
// a write applied twice. A write is therefore repeated only when it cannot have reached the first controller.
import { changesNothing, mayHaveBeenSent } from './transport.js';
import { TransportError } from './types.js';

/** A request that failed on its way (refused, reset, timeout, TLS) may be made elsewhere when this says so. */
export function mayRetryAfterFailure(method: string, err: unknown): boolean {
  return changesNothing(method) || !mayHaveBeenSent(err);
}

/**
 * An answer that another controller may serve better: its database is unavailable to it (503 STORE_UNAVAILABLE).
 * Reads only: the controller answers so as well when the connection to its database was lost during a commit, so
 * the answer does not prove that a write was not applied.
 */
export function mayRetryAnswer(method: string, status: number, text: string): boolean {
  if (status !== 503 || !changesNothing(method)) return false;
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code === 'STORE_UNAVAILABLE';
  } catch {
    return false; // not the controller's envelope (a proxy's page): nothing says another controller would do better
  }
}

/** Every controller of the profile failed the request: each one and why, in the order they were tried. */
export class NoControllerAnsweredError extends TransportError {
  constructor(
    readonly failures: { url: string; reason: string }[],
    hint?: string,
  ) {
    super(
      `no controller could serve the request:\n${failures.map((f) => `  ${f.url}: ${f.reason}`).join('\n')}`,
      failures[0].url,
      hint,
    );
    this.name = 'NoControllerAnsweredError';
  }
}
