import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';

/**
 * `-` as a JSON flag's value: stdin is read when the command runs, through the command's IO (readStdinFlags), not
 * while the flags are parsed. Parsers are synchronous and would have to read the process's descriptor 0 themselves.
 */
export class FromStdin {}

/** A JSON object, or `Failure` saying why the text is not one (and where it came from). */
export function parseJsonObject(text: string, source: string | undefined, Failure: new (message: string) => Error): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Failure(`not valid JSON${source ? ` in ${source}` : ''}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Failure('expected a JSON object.');
  return parsed as Record<string, unknown>;
}

/** Replaces the one flag given `-` with the JSON object read from stdin; two flags cannot both read it. */
export async function readStdinFlags(command: CommandUnknownOpts, io: IO): Promise<void> {
  const values = command.opts() as Record<string, unknown>;
  const keys = Object.keys(values).filter((k) => values[k] instanceof FromStdin);
  if (keys.length === 0) return;
  const flagOf = (key: string) => command.options.find((o) => o.attributeName() === key)?.flags ?? key;
  if (keys.length > 1) throw new UsageError(`only one flag can read stdin: ${keys.map(flagOf).join(' and ')} were both given '-'`);
  const key = keys[0]!;
  const Failure = class extends UsageError {
    constructor(message: string) {
      super(`option '${flagOf(key)}' argument '-' is invalid. ${message}`);
    }
  };
  // Loaded here: this module is part of every start-up, stdin reading only of the commands that use it.
  const { readStdin } = await import('../session/stdin.js');
  command.setOptionValueWithSource(key, parseJsonObject(await readStdin(io), 'stdin', Failure), 'cli');
}
