import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { HELP_TOPICS } from '../help-topics.js';
import { hintFor } from './hints.js';
import type { CompletionSource } from './hints.js';

/** Values that only the outside world knows (entity names from the controller, profile names from disk). */
export type DynamicValues = (source: CompletionSource) => Promise<string[]>;

/** Where the words typed so far lead: the command reached, how many positionals it has, an option awaiting its value. */
interface Position {
  command: CommandUnknownOpts;
  positionals: number;
  pending?: Option;
}

/** The option `flag` names on `command` or an ancestor (global flags are accepted everywhere). */
function findOption(command: CommandUnknownOpts, flag: string): Option | undefined {
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    const found = c.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found as Option;
  }
  return undefined;
}

function locate(root: CommandUnknownOpts, typed: readonly string[]): Position {
  const position: Position = { command: root, positionals: 0 };
  let operandsOnly = false;
  for (const word of typed) {
    if (position.pending) {
      position.pending = undefined;
    } else if (!operandsOnly && word === '--') {
      operandsOnly = true;
    } else if (!operandsOnly && word.startsWith('-') && word.length > 1) {
      const option = word.includes('=') ? undefined : findOption(position.command, word);
      if (option?.required) position.pending = option;
    } else {
      const sub = position.positionals === 0 ? position.command.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
      if (sub) position.command = sub;
      else position.positionals++;
    }
  }
  return position;
}

/** Visible flags of the command and its ancestors, long forms only (short ones are for typing, not choosing). */
function flags(command: CommandUnknownOpts): string[] {
  const out: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    for (const option of c.createHelp().visibleOptions(c)) if (option.long) out.push(option.long);
  }
  return out;
}

async function valuesOf(target: { argChoices?: string[] } | undefined, dynamic: DynamicValues, root: CommandUnknownOpts): Promise<string[]> {
  if (!target) return [];
  if (target.argChoices) return target.argChoices;
  const hint = hintFor(target);
  if (hint?.kind === 'help') return [...HELP_TOPICS.map((t) => t.name), ...root.createHelp().visibleCommands(root).map((c) => c.name())];
  return hint ? dynamic(hint) : [];
}

/**
 * What may come next after `words` (everything typed after `ctl`, the last one being the word under the cursor,
 * possibly empty): an option's values, flags when the word starts with `-`, subcommands, or argument values.
 * Only candidates starting with the current word are returned; none means "complete file names".
 */
export async function candidates(root: CommandUnknownOpts, words: readonly string[], dynamic: DynamicValues): Promise<string[]> {
  const current = words.length > 0 ? words[words.length - 1] : '';
  const { command, positionals, pending } = locate(root, words.slice(0, -1));
  let found: string[];
  if (pending) {
    found = await valuesOf(pending, dynamic, root);
  } else if (current.startsWith('-')) {
    found = flags(command);
  } else if (positionals === 0 && command.commands.length > 0) {
    found = command.createHelp().visibleCommands(command).map((c) => c.name());
  } else {
    const args = command.registeredArguments;
    const last = args[args.length - 1];
    found = await valuesOf(args[positionals] ?? (last?.variadic ? last : undefined), dynamic, root);
  }
  return [...new Set(found)].filter((c) => c.startsWith(current));
}
