// Required values the command line left out: asked for at a terminal, a usage error naming them everywhere else.
// Derived from the field flags, so every create (generic or a noun's own) asks for its own required fields the same
// way: the answer goes through the flag's own parser and choices, exactly as if it had been typed as the flag.
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import type { Deps } from '../deps.js';
import type { FieldFlag } from './fields.js';
import { given } from './flags.js';

/** How often a bad answer is asked again before giving up with a usage error. */
const ATTEMPTS = 3;

/** A positional value that may be prompted for (a create's NAME). */
export interface MissingArgument {
  /** As usage lines show it, e.g. `NAME`. */
  label: string;
  /** The prompt, e.g. `Name of the new service`. */
  message: string;
  value: string | undefined;
}

/**
 * Fills in what is missing: the positional `argument` when it is undefined, then every required field flag not
 * given (`present` lists fields the command sets itself). Prompts only when the IO may (stdin and stdout are
 * terminals, CI unset, no --no-input); otherwise throws one usage error (exit 2) naming everything missing.
 * Returns the argument's value; the flags' values are set on `command`, as if typed, for collectFields.
 */
export async function promptMissing(
  command: CommandUnknownOpts,
  flags: readonly FieldFlag[],
  deps: Deps,
  opts: { argument?: MissingArgument; present?: readonly string[] } = {},
): Promise<string | undefined> {
  const present = new Set(opts.present ?? []);
  const missing = flags.filter(
    (f) => f.required && !present.has(f.field) && ![f.key, ...(f.aliasKeys ?? [])].some((k) => given(command, k)),
  );
  const argument = opts.argument;
  const argumentMissing = argument !== undefined && (argument.value === undefined || argument.value === '');
  if (!argumentMissing && missing.length === 0) return argument?.value;
  if (!deps.io.canPrompt()) {
    const names = [...(argumentMissing ? [argument.label] : []), ...missing.map((f) => `${f.flag} ${valueName(f)}`)];
    throw new UsageError(`missing ${names.join(', ')}`, [
      `pass ${names.length === 1 ? 'it' : 'them'} on the command line (prompting needs a terminal, CI unset and no ` +
        '--no-input)',
    ]);
  }
  const prompter = await deps.prompter();
  let value = argument?.value;
  if (argumentMissing)
    value = await ask(
      argument.message,
      (text) => (text.trim() === '' ? fail('a value is needed') : text.trim()),
      (m) => prompter.input(m),
    );
  for (const flag of missing) {
    const option = flag.option;
    const choices = option.argChoices;
    const message = `${flag.flag}: ${option.description}${choices ? ` (${choices.join('|')})` : ''}`;
    const parse = (text: string): unknown => {
      if (text.trim() === '') return fail('a value is needed');
      return option.parseArg ? option.parseArg(text.trim(), undefined as never) : text.trim();
    };
    command.setOptionValueWithSource(flag.key, await ask(message, parse, (m) => prompter.input(m)), 'cli');
  }
  return value;
}

function valueName(flag: FieldFlag): string {
  return /<([^>]+)>/.exec(flag.option.flags)?.[1]?.toUpperCase() ?? 'VALUE';
}

function fail(message: string): never {
  throw new Error(message);
}

/** Asks until `parse` accepts the answer, saying why it did not; a usage error after a few tries. */
async function ask<T>(
  message: string,
  parse: (text: string) => T,
  input: (message: string) => Promise<string>,
): Promise<T> {
  let reason = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const text = await input(reason === '' ? message : `${message} [${reason}]`);
    try {
      return parse(text);
    } catch (err) {
      reason = (err as Error).message.replace(/\.$/, '');
    }
  }
  throw new UsageError(`no valid answer for ${message.split(':')[0]}: ${reason}`);
}
