import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { isOption } from '../command-words.js';
import { HELP_TOPICS } from '../help-topics.js';
import { hintFor } from './hints.js';
import type { CompletionSource } from './hints.js';

/** Values that only the outside world knows (entity names from the controller, profile names from disk). */
export type DynamicValues = (source: CompletionSource) => Promise<string[]>;

/**
 * Where the words typed so far lead: the command reached, how many positionals it has, an option awaiting its value.
 */
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

/**
 * Whether `word`, an option word, is unknown to `command` and may be waiting for a value: not `--flag=value`, nor a
 * known short option with its value or other short options joined to it (`-ojson`).
 */
function unknownAwaitingValue(command: CommandUnknownOpts, word: string): boolean {
  if (word.includes('=') || findOption(command, word)) return false;
  return word.startsWith('--') || word.length === 2 || !findOption(command, word.slice(0, 2));
}

/**
 * Where the words lead. An unknown option does not stop the reading (the line would fail if run, but what follows
 * is still worth completing); whether it takes a value cannot be known, so where a subcommand may come next, the
 * word after it is the subcommand if it names one and the option's value otherwise (as command-words.ts reads
 * the root's words for the commands to load). Where operands come, it is an operand, as before.
 */
function locate(root: CommandUnknownOpts, typed: readonly string[]): Position {
  const position: Position = { command: root, positionals: 0 };
  let operandsOnly = false;
  let afterUnknown = false;
  for (const word of typed) {
    const valueOfUnknown = afterUnknown;
    afterUnknown = false;
    if (position.pending) {
      position.pending = undefined;
    } else if (!operandsOnly && word === '--') {
      operandsOnly = true;
    } else if (!operandsOnly && isOption(word)) {
      const option = word.includes('=') ? undefined : findOption(position.command, word);
      if (option?.required) position.pending = option;
      afterUnknown = unknownAwaitingValue(position.command, word);
    } else {
      const sub =
        position.positionals === 0
          ? position.command.commands.find((c) => c.name() === word || c.aliases().includes(word))
          : undefined;
      const subcommandDue = position.positionals === 0 && position.command.commands.length > 0;
      if (sub) position.command = sub;
      else if (valueOfUnknown && subcommandDue) continue;
      else position.positionals++;
      const nested = hintFor(position.command);
      if (nested?.kind === 'commands' && position.positionals === nested.positionals) {
        position.command = nested.tree();
        position.positionals = 0;
      }
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

async function valuesOf(
  target: { argChoices?: string[] } | undefined,
  dynamic: DynamicValues,
  root: CommandUnknownOpts,
): Promise<string[]> {
  if (!target) return [];
  if (target.argChoices) return target.argChoices;
  const hint = hintFor(target);
  if (hint?.kind === 'help')
    return [
      ...HELP_TOPICS.map((t) => t.name),
      ...root
        .createHelp()
        .visibleCommands(root)
        .map((c) => c.name()),
    ];
  return hint ? dynamic(hint) : [];
}

/**
 * bash splits `--type=Di` into `--type`, `=`, `Di` (`=` is in COMP_WORDBREAKS) and replaces only the text after
 * the `=`; zsh and fish pass the word whole and replace all of it. Joins the split back; `split` says whether the
 * word under the cursor was split, so that candidates are returned without the `--type=` bash keeps.
 */
export function joinAssignments(words: readonly string[]): { words: string[]; split: boolean } {
  const out: string[] = [];
  let split = false;
  for (let i = 0; i < words.length; i++) {
    const previous = out[out.length - 1];
    if (words[i] === '=' && previous !== undefined && /^--[^=]+$/.test(previous)) {
      const value = words[i + 1];
      out[out.length - 1] = `${previous}=${value ?? ''}`;
      if (i + 1 >= words.length - 1) split = true;
      if (value !== undefined) i++;
      continue;
    }
    out.push(words[i]);
  }
  return { words: out, split };
}

/**
 * The values of a comma-separated list flag (`--config a,b`, `--identities '#sales,@lap'`) complete the part after
 * the last comma, keeping what comes before and leaving out what is already listed.
 */
function listValues(found: string[], current: string, target: object | undefined): string[] {
  const hint = target ? hintFor(target) : undefined;
  const listed = hint && 'list' in hint && hint.list ? current.lastIndexOf(',') : -1;
  if (listed < 0) return found;
  const head = current.slice(0, listed + 1);
  const done = new Set(head.split(','));
  return found.filter((v) => !done.has(v)).map((v) => head + v);
}

/**
 * What may come next after `words` (everything typed after `ctl`, the last one being the word under the cursor,
 * possibly empty): an option's values (also as `--flag=value`), flags when the word starts with `-`, subcommands,
 * or argument values. Only candidates starting with the current word are returned; none means "complete file names".
 */
export async function candidates(
  root: CommandUnknownOpts,
  typed: readonly string[],
  dynamic: DynamicValues,
): Promise<string[]> {
  const { words, split } = joinAssignments(typed);
  let current = words.length > 0 ? words[words.length - 1] : '';
  const { command, positionals, pending } = locate(root, words.slice(0, -1));
  let found: string[];
  let prefix = '';
  const assignment = pending ? undefined : /^(--[^=]+)=(.*)$/s.exec(current);
  if (assignment) {
    const option = findOption(command, assignment[1]);
    current = assignment[2];
    prefix = split ? '' : `${assignment[1]}=`;
    found =
      option?.required || option?.optional ? listValues(await valuesOf(option, dynamic, root), current, option) : [];
  } else if (pending) {
    found = listValues(await valuesOf(pending, dynamic, root), current, pending);
  } else if (current.startsWith('-')) {
    found = flags(command);
  } else if (positionals === 0 && command.commands.length > 0) {
    found = command
      .createHelp()
      .visibleCommands(command)
      .map((c) => c.name());
  } else {
    const args = command.registeredArguments;
    const last = args[args.length - 1];
    found = await valuesOf(args[positionals] ?? (last?.variadic ? last : undefined), dynamic, root);
  }
  return [...new Set(found)].filter((c) => c.startsWith(current)).map((c) => prefix + c);
}
