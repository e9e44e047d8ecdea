import { CliError } from '../../console/errors.js';
import type { ExitCode } from '../../console/errors.js';
import type { IO } from '../../console/io.js';
import { describeFailure, formatFailure, mostSevere } from '../output/failure.js';

/**
 * Failures of a multi-target verb (`delete a b c`). With several targets each failure is printed on stderr as it
 * happens, naming its target, and the verb ends with a summary carrying the most severe exit code; with a single
 * target its error is simply rethrown, so that main() prints it once.
 */
export class Failures {
  private readonly errors: unknown[] = [];
  private readonly codes: ExitCode[] = [];

  constructor(
    private readonly io: IO,
    private readonly many: boolean,
  ) {}

  get count(): number {
    return this.errors.length;
  }

  add(target: string, err: unknown): void {
    const failure = describeFailure(err);
    this.errors.push(err);
    this.codes.push(failure.exitCode);
    if (!this.many) return;
    const [message, ...details] = failure.lines;
    for (const line of formatFailure({ ...failure, lines: [`${target}: ${message}`, ...details] })) this.io.info(line);
  }

  /** Throws when anything failed; `summary` is the closing message for several targets. */
  finish(summary: string): void {
    if (this.errors.length === 0) return;
    if (!this.many) throw this.errors[0];
    throw new CliError(summary, mostSevere(this.codes));
  }
}
