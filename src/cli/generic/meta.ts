import type { CommandUnknownOpts } from '@commander-js/extra-typings';

export interface CommandMeta {
  description: string;
  /** Command lines shown under "Examples:" in help, without the `$ ` prompt, e.g. `ctl identity list`. */
  examples: readonly string[];
}

/**
 * Sets a command's description and its examples. Every command has both (tree.test.ts checks the help of each);
 * examples live beside the code so that they change with it.
 */
export function withMeta<C extends CommandUnknownOpts>(command: C, meta: CommandMeta): C {
  command.description(meta.description);
  command.addHelpText('after', `\nExamples:\n${meta.examples.map((e) => `  $ ${e}`).join('\n')}`);
  return command;
}
