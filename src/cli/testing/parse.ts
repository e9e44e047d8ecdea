// Test-only argv parsing: a built command parses words as commander does under ctl, its exits turned into thrown
// CommanderErrors and its output silenced; and a `run` that keeps the options it is given, so flag tests check
// argv -> options without any I/O.
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

function quiet(command: CommandUnknownOpts): void {
  command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  for (const sub of command.commands) quiet(sub);
}

/** Parses argv, the words after the command's own name. */
export async function parse(command: CommandUnknownOpts, argv: string[]): Promise<void> {
  quiet(command);
  await command.parseAsync(argv, { from: 'user' });
}

/** Parses argv from the command's name on, under a root with the global --profile, as `ctl ARGV` would. */
export async function parseArgv(command: CommandUnknownOpts, argv: string[]): Promise<void> {
  const root = new Command('ctl').option('--profile <name>', 'profile to use');
  root.addCommand(command);
  await parse(root, argv);
}

export function capture<T>(): { run: (opts: T) => Promise<void>; last: () => T } {
  let seen: T | undefined;
  return {
    run: async (opts) => {
      seen = opts;
    },
    last: () => {
      if (seen === undefined) throw new Error('run was not called');
      return seen;
    },
  };
}
