import type { Argument, CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { isOption } from '../command-words.js';
import { HELP_TOPICS } from '../help-topics.js';
import { hintFor } from './hints.js';
import type { CompletionSource } from './hints.js';
import { fixedValues, repeatable, valueForm } from './option-facts.js';
import { shortDescription } from './short-description.js';
import { givenValues, matching, nextArgument, offeredAgain, remainingValues } from './values.js';
import type { Candidate } from './values.js';

/** Values that only the outside world knows (entity names from the controller, profile names from disk). */
export type DynamicValues = (source: CompletionSource) => Promise<string[]>;

/**
 * Where the words typed so far lead: the command reached, its operands, an option awaiting its value.
 */
interface Position {
  command: CommandUnknownOpts;
  /** The operands of the command reached, in order. */
  operands: string[];
  pending?: Option;
  /** The options the line gives, by attribute name (`--no-x` is `--x`'s), with the values given to each. */
  given: Map<string, string[]>;
}

/** `--flag=value`: the flag, then its value (which may hold `=` and line breaks). */
const ASSIGNMENT = /^(--[^=]+)=(.*)$/s;

/** The option `flag` names on `command` or an ancestor (global flags are accepted everywhere). */
function findOption(command: CommandUnknownOpts, flag: string): Option | undefined {
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    const found = c.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

/**
 * The options a short-option word gives with what follows them joined to it: `-ojson` (a value), `-ay` (two flags).
 * Stops at the first letter that names no option; none when the word is not such a word.
 */
function joinedShortOptions(command: CommandUnknownOpts, word: string): { option: Option; value?: string }[] {
  if (word.startsWith('--') || word.length <= 2) return [];
  const out: { option: Option; value?: string }[] = [];
  for (let i = 1; i < word.length; i++) {
    const option = findOption(command, `-${word[i]}`);
    if (!option) break;
    if (option.required || option.optional) {
      out.push({ option, value: word.slice(i + 1) || undefined });
      break;
    }
    out.push({ option });
  }
  return out;
}

/**
 * Where the words lead. An unknown option does not stop the reading (the line would fail if run, but what follows
 * is still worth completing); whether it takes a value cannot be known, so where a subcommand may come next, the
 * word after it is the subcommand if it names one and the option's value otherwise (as command-words.ts reads
 * the root's words for the commands to load). Where operands come, it is an operand, as before.
 */
function locate(root: CommandUnknownOpts, typed: readonly string[]): Position {
  const position: Position = { command: root, operands: [], given: new Map() };
  const give = (option: Option, value?: string) => {
    const values = position.given.get(option.attributeName()) ?? [];
    position.given.set(option.attributeName(), value === undefined ? values : [...values, value]);
  };
  let operandsOnly = false;
  let afterUnknown = false;
  for (const word of typed) {
    const valueOfUnknown = afterUnknown;
    afterUnknown = false;
    if (position.pending) {
      give(position.pending, word);
      position.pending = undefined;
    } else if (!operandsOnly && word === '--') {
      operandsOnly = true;
    } else if (!operandsOnly && isOption(word)) {
      const assigned = ASSIGNMENT.exec(word);
      const option = findOption(position.command, assigned ? assigned[1] : word);
      const joined = option || assigned ? [] : joinedShortOptions(position.command, word);
      if (option) give(option, assigned?.[2]);
      for (const given of joined) give(given.option, given.value);
      // The option, or the last of joined ones (`-yo`), waits for the next word when it needs a value not given.
      const last = option ? { option, value: assigned?.[2] } : joined.at(-1);
      if (last?.option.required && last.value === undefined) position.pending = last.option;
      // An option unknown to the command (not `--flag=value`) may be waiting for a value.
      afterUnknown = !option && joined.length === 0 && !word.includes('=');
    } else {
      const sub =
        position.operands.length === 0
          ? position.command.commands.find((c) => c.name() === word || c.aliases().includes(word))
          : undefined;
      const subcommandDue = position.operands.length === 0 && position.command.commands.length > 0;
      if (sub) position.command = sub;
      else if (valueOfUnknown && subcommandDue) continue;
      else position.operands.push(word);
      const nested = hintFor(position.command);
      if (nested?.kind === 'commands' && position.operands.length === nested.positionals) {
        position.command = nested.tree();
        position.operands = [];
      }
    }
  }
  return position;
}

/**
 * Visible flags of the command and its ancestors that `current` begins, long forms only (short ones are for typing,
 * not choosing), with their descriptions; a flag the line gives already is left out unless giving it again adds to
 * it. Only those matching are described: shortening every description cost a TAB milliseconds (prebuilt/serve.ts).
 */
function flags(command: CommandUnknownOpts, given: Position['given'], current: string): Candidate[] {
  const out: Candidate[] = [];
  for (let c: CommandUnknownOpts | null = command; c; c = c.parent) {
    for (const option of c.createHelp().visibleOptions(c)) {
      if (!option.long?.startsWith(current)) continue;
      if (!offeredAgain(given, option.attributeName(), repeatable(option))) continue;
      out.push({ value: option.long, description: shortDescription(option.description) });
    }
  }
  return out;
}

/** The visible subcommands that `current` begins, with the line each has in help. */
function subcommands(command: CommandUnknownOpts, current: string): Candidate[] {
  const help = command.createHelp();
  return help
    .visibleCommands(command)
    .filter((c) => c.name().startsWith(current))
    .map((c) => ({ value: c.name(), description: shortDescription(help.subcommandDescription(c)) }));
}

async function valuesOf(
  target: Option | Argument | undefined,
  dynamic: DynamicValues,
  root: CommandUnknownOpts,
): Promise<string[]> {
  if (!target) return [];
  const fixed = fixedValues(target);
  if (fixed) return [...fixed];
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

/** The values of `option` that remain for `current`: what a repeatable flag was given already is left out. */
function optionValues(found: string[], current: string, option: Option, given: Position['given']): string[] {
  const before = givenValues(given, option.attributeName(), repeatable(option));
  return remainingValues(found, current, valueForm(option), before);
}

/**
 * What may come next after `words` (everything typed after `ctl`, the last one being the word under the cursor,
 * possibly empty): an option's values (also as `--flag=value`), flags when the word starts with `-`, subcommands,
 * or argument values. Only candidates starting with the current word are returned; none means "complete file names".
 * What the line already gives is not offered again: the values of a repeatable flag or a variadic argument, and a
 * flag that cannot repeat.
 */
export async function candidates(
  root: CommandUnknownOpts,
  typed: readonly string[],
  dynamic: DynamicValues,
): Promise<Candidate[]> {
  const { words, split } = joinAssignments(typed);
  let current = words.length > 0 ? words[words.length - 1] : '';
  const { command, operands, pending, given } = locate(root, words.slice(0, -1));
  let found: Candidate[];
  let prefix = '';
  const assignment = pending ? undefined : ASSIGNMENT.exec(current);
  const values = (list: string[]) => list.map((value) => ({ value }));
  if (assignment) {
    const option = findOption(command, assignment[1]);
    current = assignment[2];
    prefix = split ? '' : `${assignment[1]}=`;
    const taken = option?.required || option?.optional;
    found = taken ? values(optionValues(await valuesOf(option, dynamic, root), current, option, given)) : [];
  } else if (pending) {
    found = values(optionValues(await valuesOf(pending, dynamic, root), current, pending, given));
  } else if (current.startsWith('-')) {
    found = flags(command, given, current);
  } else if (operands.length === 0 && command.commands.length > 0) {
    found = subcommands(command, current);
  } else {
    const { target, given: before } = nextArgument(command.registeredArguments, operands);
    found = target
      ? values(remainingValues(await valuesOf(target, dynamic, root), current, valueForm(target), before))
      : [];
  }
  return matching(found, current).map((c) => ({ ...c, value: prefix + c.value }));
}
