import type { Readable, Writable } from 'node:stream';
import type { Ora } from 'ora';
import { cleanUpOnExit } from './process-exit.js';

/**
 * The streams a command may touch, with the terminal facts that decide how output looks and whether we may prompt.
 * Commands never use process.stdout/stderr or console directly, so tests run them with string buffers.
 */
export interface IO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour allowed on stdout (TTY, NO_COLOR unset, TERM not dumb, no --no-color; FORCE_COLOR wins). */
  color: boolean;
  /** Terminal width for tables; undefined off a terminal or when the terminal reports no size. */
  width?: number;
  /** stdin and stdout are terminals, CI is unset and --no-input was not given. */
  canPrompt(): boolean;
  /** Writes a line to stderr: informational messages never go to stdout. */
  info(message: string): void;
  warn(message: string): void;
  /** Writes to stdout: the result only. */
  out(text: string): void;
  /**
   * Runs work behind a spinner on stderr when a person watches a sized terminal (see spinnerAllowed), shown after
   * `delayMs` (at once by default) so that quick work draws nothing; within another spinner's work, none.
   */
  spin<T>(text: string, work: () => Promise<T>, delayMs?: number): Promise<T>;
}

export interface IOSettings {
  env: NodeJS.ProcessEnv;
  noColor?: boolean;
  noInput?: boolean;
  /** The command prints for a program (-q, -o json|yaml): no spinner then, whatever stderr is. */
  machineOutput?: boolean;
}

export function colorAllowed(isTTY: boolean, env: NodeJS.ProcessEnv, noColorFlag = false): boolean {
  if (noColorFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

/**
 * Whether a spinner may draw on stderr. Not in CI, not for machine output, and never on a terminal that reports no
 * size: a spinner redraws by counting lines, and a width of 0 (script, docker run -t) makes that count infinite.
 */
export function spinnerAllowed(
  stderr: { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
  machineOutput = false,
): boolean {
  return Boolean(stderr.isTTY) && (stderr.columns ?? 0) > 0 && !env.CI && !machineOutput;
}

function line(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

export function createProcessIO(settings: IOSettings): IO {
  const { env } = settings;
  const stdoutIsTTY = Boolean(process.stdout.isTTY);
  const stderrIsTTY = Boolean(process.stderr.isTTY);
  // One spinner at a time on stderr: two would redraw over each other.
  let spinning = false;
  const io: IO = {
    // process.stdin makes its stream when first read, which for a file, a pipe or /dev/null loads Node's streams
    // for them: a millisecond or more every command would pay, where few read their input.
    get stdin() {
      return process.stdin;
    },
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdoutIsTTY,
    stderrIsTTY,
    // Read when used: --no-color is parsed after the IO exists.
    get color() {
      return colorAllowed(stdoutIsTTY, env, settings.noColor);
    },
    // A terminal that reports no size (script, docker run -t) says 0 columns: unknown, not zero wide.
    width: stdoutIsTTY && process.stdout.columns > 0 ? process.stdout.columns : undefined,
    canPrompt: () => io.stdinIsTTY && stdoutIsTTY && !env.CI && !settings.noInput,
    info: (message) => void process.stderr.write(line(message)),
    warn: (message) => void process.stderr.write(line(`warning: ${message}`)),
    out: (text) => void process.stdout.write(line(text)),
    async spin(text, work, delayMs = 0) {
      if (spinning || !spinnerAllowed(process.stderr, env, settings.machineOutput)) return work();
      spinning = true;
      let spinner: Ora | undefined;
      let ended = false;
      const show = async () => {
        const { default: ora } = await import('ora');
        if (ended) return;
        // Neither hiding the cursor nor discarding stdin: both install process-wide handlers (exit, signals, raw
        // stdin) that could outlive the spinner or keep a signal from ending ctl.
        spinner = ora({
          text,
          stream: process.stderr,
          isEnabled: colorAllowed(stderrIsTTY, env, settings.noColor),
          hideCursor: false,
          discardStdin: false,
        }).start();
      };
      // Ctrl-C, a signal or an exit from anywhere clears the frame too: it must not stay on the terminal.
      const release = cleanUpOnExit(() => spinner?.stop());
      const timer = delayMs > 0 ? setTimeout(() => void show(), delayMs) : undefined;
      if (!timer) await show();
      try {
        return await work();
      } finally {
        ended = true;
        clearTimeout(timer);
        release();
        spinner?.stop();
        spinning = false;
      }
    },
  };
  return io;
}
