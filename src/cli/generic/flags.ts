import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { MAX_LIMIT, MAX_OFFSET } from '../../protocol/paging.js';

/**
 * Flag groups shared by many commands, defined once so that a flag keeps one spelling and one meaning everywhere
 * (scripts depend on `-q` and `-y`).
 */

/** An integer option-argument parser with bounds; a bad value is a usage error naming the range. */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('not an integer.');
    if (n < min || n > max) throw new InvalidArgumentError(`must be between ${min} and ${max}.`);
    return n;
  };
}

/** `30s`, `500ms`, `2m`, or plain seconds (`45`) → milliseconds, between 1 ms and a day. */
export function milliseconds(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm'] : NaN;
  if (!(ms >= 1 && ms <= 86_400_000)) throw new InvalidArgumentError('expected a duration such as 30s, 500ms or 2m.');
  return Math.round(ms);
}

export interface PagingValues {
  limit?: number;
  offset?: number;
  all?: boolean;
}

export function addPaging<C extends CommandUnknownOpts>(command: C): C {
  command.addOption(new Option('--limit <n>', `rows per page (server default 10, at most ${MAX_LIMIT})`).argParser(integer(1, MAX_LIMIT)));
  command.addOption(new Option('--offset <n>', 'rows to skip before the page').argParser(integer(0, MAX_OFFSET)));
  command.addOption(new Option('--all', 'follow the pages and return every row').conflicts(['limit', 'offset']));
  return command;
}

export function addQuiet<C extends CommandUnknownOpts>(command: C): C {
  command.addOption(new Option('-q, --quiet', 'print only ids, one per line'));
  return command;
}

export function addYes<C extends CommandUnknownOpts>(command: C): C {
  command.addOption(new Option('-y, --yes', 'do not ask for confirmation'));
  return command;
}

/** Whether the user typed the option (as opposed to a default): PATCH sends only what was given. */
export function given(command: CommandUnknownOpts, key: string): boolean {
  return command.getOptionValueSource(key) === 'cli';
}
