import { CommanderError } from '@commander-js/extra-typings';
import { RequestApiError, TransportError } from '../../client/types.js';
import { NOUNS } from '../nouns/summary.js';
import { ApiError } from '../../protocol/errors.js';
import type { ErrorCause } from '../../protocol/errors.js';
import { ChangesPending, CliError, EXIT } from '../../console/errors.js';
import type { ExitCode } from '../../console/errors.js';

/**
 * The one place where a thrown error becomes an exit code and the lines printed on stderr. main() uses it for the
 * error that ends a command; multi-target verbs (delete a b c) use it to report each failure and carry on.
 */
export interface Failure {
  exitCode: ExitCode;
  /** First line is the message (printed as `error: ...`), the rest are detail lines (printed indented). */
  lines: string[];
}

/**
 * Errors of the embedded controller that an operator fixes (a busy port, an unusable store, a missing native
 * module): plain messages, never "a bug". Recognised by name, so the CLI does not load controller code to check.
 */
const OPERATOR_ERRORS = new Set(['ControllerStartError', 'StoreUnavailableError', 'SqliteNativeError']);

function isOperatorError(err: unknown): err is Error & { details?: string[] } {
  return err instanceof Error && OPERATOR_ERRORS.has(err.name);
}

const LOGIN_HINT = "run 'ctl login' to sign in (or choose another profile with --profile)";

export function describeFailure(err: unknown, debug = false): Failure {
  if (err instanceof ChangesPending) return { exitCode: err.exitCode, lines: [] };
  if (err instanceof CliError) return { exitCode: err.exitCode, lines: [err.message, ...err.details] };
  if (err instanceof ApiError) return apiFailure(err);
  if (isOperatorError(err)) return { exitCode: EXIT.failure, lines: [err.message, ...(err.details ?? [])] };
  if (err instanceof TransportError)
    return { exitCode: EXIT.failure, lines: [err.message, ...(err.hint ? [err.hint] : [])] };
  // commander has already printed its message (unknown option, missing argument, help on stderr).
  if (err instanceof CommanderError) return { exitCode: err.exitCode === 0 ? EXIT.ok : EXIT.usage, lines: [] };
  if (isInterrupt(err)) return { exitCode: EXIT.interrupted, lines: [] };
  const environment = environmentFailure(err);
  if (environment) return { exitCode: EXIT.failure, lines: environment };
  const message = err instanceof Error ? err.message : String(err);
  const stack = debug && err instanceof Error && err.stack ? err.stack.split('\n').slice(1) : [];
  return {
    exitCode: EXIT.failure,
    lines: [
      `unexpected error: ${message}`,
      'this is a bug in ctl: please report it, with the output of --debug',
      ...stack,
    ],
  };
}

function apiFailure(err: ApiError): Failure {
  const duplicate = duplicateMessage(err);
  if (duplicate) return { exitCode: EXIT.rejected, lines: [duplicate] };
  const causes = causeLines(err.cause);
  const message = `${err.message} (${err.code})`;
  // FORBIDDEN is the operation refused for this entity (request-extend on a password), not the session: exit 6 below.
  if (
    err.code === 'UNAUTHORIZED' ||
    err.code === 'INVALID_AUTH' ||
    err.status === 401 ||
    (err.status === 403 && err.code !== 'FORBIDDEN')
  ) {
    return { exitCode: EXIT.auth, lines: [message, ...causes, LOGIN_HINT] };
  }
  if (err.code === 'NOT_FOUND' || err.status === 404) return { exitCode: EXIT.notFound, lines: [message, ...causes] };
  // Other 4xx (validation, bad filter, conflicts) say the request itself was refused;
  // 408/429 and 5xx may pass on retry.
  const rejected = err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
  return { exitCode: rejected ? EXIT.rejected : EXIT.failure, lines: [message, ...causes] };
}

/**
 * A unique-index refusal (400 COULD_NOT_VALIDATE, `duplicate value ... in unique index`), in the words of the
 * resource the request was about: `an identity named laptop-7 already exists`.
 */
function duplicateMessage(err: ApiError): string | undefined {
  const cause = err.cause;
  if (err.code !== 'COULD_NOT_VALIDATE' || typeof cause !== 'object' || !('field' in cause)) return undefined;
  if (!/unique index|duplicate/i.test(cause.reason)) return undefined;
  const label = err instanceof RequestApiError ? resourceOfPath(err.request.path)?.label : undefined;
  const what = label ?? 'entity';
  const article = /^[aeiou]/i.test(what) ? 'an' : 'a';
  const field = cause.field.replace(/^.*\./, '');
  return `${article} ${what} ${field === 'name' ? 'named' : `with ${field}`} ${cause.value} already exists`;
}

/**
 * The noun a request path addresses (`/identities/x/disable` -> identity), from the
 * root's summaries: no catalogue load.
 */
function resourceOfPath(path: string) {
  const segments = path.split(/[/?]/);
  return NOUNS.find((noun) => segments.includes(noun.plural));
}

/**
 * Failures of the machine ctl runs on rather than of ctl: a port another program holds or that needs privileges, a
 * database file that is damaged, full or cannot be opened. Plain messages naming the port or file, never "a bug".
 */
function environmentFailure(err: unknown): string[] | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  const where = e.port !== undefined ? `port ${e.port}${e.address ? ` on ${e.address}` : ''}` : 'the port';
  if (e.syscall === 'listen' && e.code === 'EADDRINUSE') {
    return [
      `${where} is already in use`,
      'stop what listens there (perhaps another controller), or choose another --port',
    ];
  }
  if (e.syscall === 'listen' && e.code === 'EACCES') {
    return [`not allowed to listen on ${where}`, 'ports below 1024 need privileges: choose another --port'];
  }
  const sqlite: Record<string, string> = {
    SQLITE_CORRUPT: 'is damaged',
    SQLITE_NOTADB: 'is not a SQLite database',
    SQLITE_FULL: 'cannot grow: the disk is full',
    SQLITE_CANTOPEN: 'cannot be opened',
  };
  if (e.code && e.code in sqlite) {
    const file = e.path ?? 'the controller database (ctl.db in the data directory)';
    return [`${file} ${sqlite[e.code]} (${e.code})`, 'restore it from a backup, or move it away to start afresh'];
  }
  return undefined;
}

/**
 * The lines that say why a controller refused, from the `cause` of its error envelope: a bare string, a field error
 * (`field: reason (value)`), a message or reason, and whatever cause that nests in turn (a few levels, no repeats).
 */
export function causeLines(cause: ErrorCause | undefined): string[] {
  const lines: string[] = [];
  let next: unknown = cause;
  for (let depth = 0; next !== undefined && depth < 5; depth++) {
    const line = oneCause(next);
    if (line && !lines.includes(line)) lines.push(line);
    next = typeof next === 'object' && next !== null ? (next as { cause?: unknown }).cause : undefined;
  }
  return lines;
}

function oneCause(cause: unknown): string | undefined {
  if (typeof cause === 'string') return cause.trim() || undefined;
  if (typeof cause !== 'object' || cause === null) return undefined;
  const c = cause as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
  const why = text(c.reason) ?? text(c.message);
  const field = text(c.field);
  const value = text(c.value);
  if (field) return `${field}: ${why ?? 'is invalid'}${value ? ` (${value})` : ''}`;
  return why;
}

/** Ctrl-C during an @inquirer prompt surfaces as an error rather than a signal. */
function isInterrupt(err: unknown): boolean {
  return err instanceof Error && err.name === 'ExitPromptError';
}

/** `error: message`, then detail lines indented by two spaces. */
export function formatFailure(failure: Failure): string[] {
  const [message, ...details] = failure.lines;
  if (message === undefined) return [];
  return [`error: ${message}`, ...details.map((d) => `  ${d}`)];
}

/**
 * Which exit code wins when several targets failed: an unexpected failure first (the state is unknown), then
 * authorisation, a rejection, and last a missing target (it is already absent).
 */
const SEVERITY: readonly ExitCode[] = [
  EXIT.interrupted,
  EXIT.failure,
  EXIT.auth,
  EXIT.rejected,
  EXIT.usage,
  EXIT.declined,
  EXIT.notFound,
];

export function mostSevere(codes: readonly ExitCode[]): ExitCode {
  for (const code of SEVERITY) if (codes.includes(code)) return code;
  return EXIT.ok;
}
