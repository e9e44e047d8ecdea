import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';

/**
 * Flags that fall back to an environment variable. Commander's own `.env()` reads `process.env` while parsing; a
 * command line runs with the environment it is given (run(argv, {env})), which is the process's only when ctl is
 * its own process. So the variable is recorded here, shown in the help, and applied before the action from that
 * environment, through the option's own parser and choices (a bad value fails as a bad flag value does).
 */
const VARIABLES = new WeakMap<object, string>();

/** What this module needs of an option, whatever commander's typings infer for its value. */
interface FlagLike {
  description: string;
  flags: string;
  parseArg?: (value: string, previous: never) => unknown;
}

export function envFallback<O extends FlagLike>(option: O, variable: string): O {
  VARIABLES.set(option, variable);
  option.description = `${option.description} (env: ${variable})`;
  return option;
}

/** Gives each flag of `command` and its ancestors that was not typed the value of its variable in `env`, if set. */
export function applyEnvFallbacks(command: CommandUnknownOpts, env: NodeJS.ProcessEnv): void {
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    for (const option of c.options) {
      const variable = VARIABLES.get(option);
      const value = variable === undefined ? undefined : env[variable];
      if (value === undefined) continue;
      const key = option.attributeName();
      if (c.getOptionValue(key) !== undefined && c.getOptionValueSource(key) !== 'default') continue;
      c.setOptionValueWithSource(key, parsed(option, value, variable!), 'env');
    }
  }
}

/** The value through the option's parser (choices included), failing with the wording commander uses for `.env()`. */
function parsed(option: FlagLike, value: string, variable: string): unknown {
  if (!option.parseArg) return value;
  try {
    return option.parseArg(value, undefined as never);
  } catch (err) {
    if ((err as { code?: string }).code !== 'commander.invalidArgument') throw err;
    throw new UsageError(
      `option '${option.flags}' value '${value}' from env '${variable}' is invalid. ${(err as Error).message}`,
    );
  }
}
