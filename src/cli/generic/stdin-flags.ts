import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import type { IO } from '../../console/io.js';

/**
 * `-` as a flag's value (a JSON object, a PEM text): stdin is read when the command runs, through the command's IO
 * (readStdinFlags), not while the flags are parsed. Parsers are synchronous and would have to read the process's
 * descriptor 0 themselves. `parse` turns the text read into the flag's value, failing as a commander parser does
 * (InvalidArgumentError).
 */
export class FromStdin {
  constructor(readonly parse: (text: string) => unknown = (text) => text) {}
}

/** A JSON object, or `Failure` saying why the text is not one (and where it came from). */
export function parseJsonObject(
  text: string,
  source: string | undefined,
  Failure: new (message: string) => Error,
): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Failure(`not valid JSON${source ? ` in ${source}` : ''}.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Failure('expected a JSON object.');
  return parsed as Record<string, unknown>;
}

/** Gives the one flag given `-` what its parser makes of stdin; two flags cannot both read it. */
export async function readStdinFlags(command: CommandUnknownOpts, io: IO): Promise<void> {
  const values = command.opts();
  const keys = Object.keys(values).filter((k) => values[k] instanceof FromStdin);
  if (keys.length === 0) return;
  const flagOf = (key: string) => command.options.find((o) => o.attributeName() === key)?.flags ?? key;
  if (keys.length > 1)
    throw new UsageError(`only one flag can read stdin: ${keys.map(flagOf).join(' and ')} were both given '-'`);
  const key = keys[0]!;
  // Loaded here: this module is part of every start-up, stdin reading only of the commands that use it.
  const { readStdin } = await import('./stdin.js');
  const text = await readStdin(io);
  try {
    command.setOptionValueWithSource(key, (values[key] as FromStdin).parse(text), 'cli');
  } catch (err) {
    if ((err as { code?: string }).code !== 'commander.invalidArgument') throw err;
    throw new UsageError(`option '${flagOf(key)}' argument '-' is invalid. ${(err as Error).message}`);
  }
}
