import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../console/errors.js';
import { similarWords } from './similar.js';
import { usageHint } from './tree.js';

/**
 * Refuses a command line whose command words name no command (`ctl ca --help`, `ctl identity bogus -h`) before
 * commander parses it: commander prints the parent's help for those and exits 0, so a typo would look like success.
 * Options are skipped with their values (those of every command on the path, which commander accepts anywhere).
 */
/** What is needed of commander's Option (the typed wrapper leaves `is` out). */
interface OptionLike {
  required: boolean;
  optional: boolean;
  is(arg: string): boolean;
}

export function checkCommandPath(root: CommandUnknownOpts, argv: readonly string[]): void {
  let command = root;
  const options: OptionLike[] = [...(root.options as unknown as OptionLike[])];
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return;
    if (arg.startsWith('-') && arg !== '-') {
      const option = options.find((o) => o.is(arg.split('=')[0]!));
      if (option && (option.required || option.optional) && !arg.includes('=')) i++;
      continue;
    }
    if (command.commands.length === 0) return;
    const next = command.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!next) {
      const path = names.join(' ');
      const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
      const known = visible.map((c) => c.name());
      const nearest = similarWords(
        arg,
        visible.flatMap((c) => [c.name(), ...c.aliases()]),
      );
      const suggestion = nearest.map((word) => `'ctl ${[...names, word].join(' ')}'`).join(' or ');
      throw new UsageError(`unknown command '${[...names, arg].join(' ')}'`, [
        ...(suggestion ? [`did you mean ${suggestion}?`] : []),
        `commands${path ? ` of 'ctl ${path}'` : ''}: ${known.join(', ')}`,
        usageHint(path),
      ]);
    }
    command = next;
    names.push(arg);
    options.push(...(next.options as unknown as OptionLike[]));
  }
}
