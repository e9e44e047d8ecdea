/**
 * Typed CLI errors. Commands throw these; only main() prints them and turns them into exit codes,
 * so every command reports failures the same way (`ctl help exit-codes`).
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  declined: 3,
  auth: 4,
  notFound: 5,
  rejected: 6,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  readonly exitCode: ExitCode;
  /** Extra lines printed under the message (field causes, hints). */
  readonly details: string[];
  constructor(message: string, exitCode: ExitCode, details: string[] = []) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.details = details;
  }
}

/** Bad flags or arguments, or a value that is needed but cannot be prompted for. */
export class UsageError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT.usage, details);
  }
}

/** The user answered no at a confirmation prompt, or a destructive command cannot ask and has no --yes. */
export class DeclinedError extends CliError {
  constructor(message = 'cancelled', details: string[] = []) {
    super(message, EXIT.declined, details);
  }
}

/** Not logged in, session expired, wrong credentials, or not allowed. */
export class AuthError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT.auth, details);
  }
}

export class NotFoundError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT.notFound, details);
  }
}

/** The controller rejected the request as invalid or conflicting. */
export class RejectedError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT.rejected, details);
  }
}

/**
 * Not a failure: `ctl diff` found changes. It exits 2, as terraform's -detailed-exitcode does, with nothing printed
 * beyond the plan it already wrote.
 */
export class ChangesPending extends CliError {
  constructor() {
    super('changes pending', EXIT.usage);
  }
}

/** Any other expected failure (controller unreachable, TLS failure, file not writable, ...). */
export class FailureError extends CliError {
  constructor(message: string, details: string[] = []) {
    super(message, EXIT.failure, details);
  }
}

/** Ctrl-C, where the command catches it to finish cleanly (a foreground controller shuts down) and then ends. */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted', details: string[] = []) {
    super(message, EXIT.interrupted, details);
  }
}

export const EXIT_CODE_HELP: Array<[ExitCode, string]> = [
  [EXIT.ok, 'success'],
  [EXIT.failure, 'failure (controller unreachable, TLS error, unexpected response, ...)'],
  [EXIT.usage, 'usage error: unknown command or flag, bad value, missing argument that cannot be prompted for'],
  [EXIT.usage, 'ctl diff only: the controller differs from the file (not an error; the plan says how)'],
  [
    EXIT.declined,
    'declined or left unanswered (Ctrl-D) at a prompt, or a destructive command ran without --yes where it cannot ask',
  ],
  [EXIT.auth, 'not logged in, session expired or revoked, wrong credentials, or not authorised'],
  [EXIT.notFound, 'a named or identified resource does not exist'],
  [EXIT.rejected, 'the controller rejected the request as invalid or conflicting'],
  [EXIT.interrupted, 'interrupted (Ctrl-C)'],
];
