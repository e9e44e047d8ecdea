import { EXIT } from './errors.js';

/**
 * How the ctl process ends when it is told to from outside. Ctrl-C exits 130, SIGTERM and SIGHUP 128+signal. When
 * something else listens too (a controller in the foreground shuts down cleanly; a prompt library restores the
 * terminal), it gets a grace period (5 s, or what it
 * asked for) to finish and end the process itself, and no more: a signal always ends ctl. A closed
 * terminal or a reader that went away (`ctl identity list | head`) ends the process quietly, as other CLIs do.
 */
const SIGNALS = { SIGINT: EXIT.interrupted, SIGHUP: 129, SIGTERM: 143 } as const;
let graceMs = 5_000;

/** A listener that needs longer to finish (a controller letting its requests in flight be answered) says so. */
export function allowSignalGrace(ms: number): void {
  graceMs = Math.max(graceMs, ms);
}

/** What must be undone however ctl ends, such as a spinner's frame left on the terminal. */
const cleanups = new Set<() => void>();

/**
 * Registers a synchronous cleanup run once when the process exits or is told to end by a signal, whichever comes
 * first; the returned function unregisters it (the work it guards ended normally).
 */
export function cleanUpOnExit(cleanup: () => void): () => void {
  if (cleanups.size === 0) process.once('exit', runCleanups);
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) process.off('exit', runCleanups);
  };
}

function runCleanups(): void {
  for (const cleanup of [...cleanups]) {
    cleanups.delete(cleanup);
    cleanup();
  }
}

export function endOnSignals(): void {
  for (const [signal, code] of Object.entries(SIGNALS)) {
    process.on(signal, () => {
      // First, so that nothing drawn on the terminal (a spinner) is left behind the ^C, whoever ends the process.
      runCleanups();
      if (process.listenerCount(signal) > 1) {
        setTimeout(() => process.exit(code), graceMs).unref();
        return;
      }
      if (signal === 'SIGINT') process.stderr.write('\n');
      process.exit(code);
    });
  }
}

/** EPIPE (the reader closed the pipe) and EIO (the terminal is gone): nobody is left to read what we would write. */
export function endQuietlyOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'EIO') process.exit(stream === process.stdout ? EXIT.ok : EXIT.failure);
      throw err;
    });
  }
}

/**
 * `work`, or the error `idle()` makes if the process runs out of everything else to do while it is pending: then
 * nothing can settle it any more, and node would exit 0 as if the command had succeeded.
 */
export async function failIfIdle<T>(work: Promise<T>, idle: () => Error): Promise<T> {
  let fail = () => {};
  const stranded = new Promise<never>((_, reject) => {
    fail = () => reject(idle());
  });
  process.once('beforeExit', fail);
  try {
    return await Promise.race([work, stranded]);
  } finally {
    process.off('beforeExit', fail);
  }
}
