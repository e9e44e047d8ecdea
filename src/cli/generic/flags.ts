import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { Command, CommandUnknownOpts, OptionValues } from '@commander-js/extra-typings';
import { MAX_LIMIT, MAX_OFFSET } from '../../protocol/paging.js';
import { keepsLast } from '../completion/option-facts.js';

/**
 * Flag groups shared by many commands, defined once so that a flag keeps one spelling and one meaning everywhere
 * (scripts depend on `-q` and `-y`). Each returns the command it is given with its options added to the command's
 * type, so that the action reads them typed.
 */

/** An integer option-argument parser with bounds; a bad value is a usage error naming the range. */
export function integer(min: number, max: number): (value: string) => number {
  return keepsLast((value: string) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('not an integer.');
    if (n < min || n > max) throw new InvalidArgumentError(`must be between ${min} and ${max}.`);
    return n;
  });
}

/** `30s`, `500ms`, `2m`, or plain seconds (`45`) → milliseconds, between 1 ms and a day. */
export const milliseconds = keepsLast((value: string): number => {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm'] : NaN;
  if (!(ms >= 1 && ms <= 86_400_000)) throw new InvalidArgumentError('expected a duration such as 30s, 500ms or 2m.');
  return Math.round(ms);
});

/** What the paging flags give (a type, not an interface: option values are a record of the flags). */
export type PagingValues = {
  limit?: number;
  offset?: number;
  all?: boolean;
};

export function addPaging<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .addOption(
      new Option('--limit <n>', `rows per page (server default 10, at most ${MAX_LIMIT})`).argParser(
        integer(1, MAX_LIMIT),
      ),
    )
    .addOption(new Option('--offset <n>', 'rows to skip before the page').argParser(integer(0, MAX_OFFSET)))
    .addOption(new Option('--all', 'follow the pages and return every row').conflicts(['limit', 'offset']));
}

export function addQuiet<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command.addOption(new Option('-q, --quiet', 'print only ids, one per line'));
}

/** `-y, --yes`: what a command that asks before it destroys something takes in scripts (confirm.ts). */
export const yesOption = () => new Option('-y, --yes', 'do not ask for confirmation');

export function addYes<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  return command.addOption(yesOption());
}

/** Whether the user typed the option (as opposed to a default): PATCH sends only what was given. */
export function given(command: CommandUnknownOpts, key: string): boolean {
  return command.getOptionValueSource(key) === 'cli';
}

/**
 * The values a repeatable list option was typed with, or undefined when it was not: for options a command adds only
 * for some resources, which its type therefore cannot name.
 */
export function typedList(command: CommandUnknownOpts, key: string): string[] | undefined {
  const value = command.opts()[key];
  return given(command, key) && Array.isArray(value) ? value.map(String) : undefined;
}
