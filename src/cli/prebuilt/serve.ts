/**
 * The lines bin/ctl.js answers from the build's prebuilt files (records.ts) instead of compiling the CLI: help of a
 * command named by its words (`ctl identity create --help`, `ctl help identity create`, `ctl help TOPIC`), and a
 * TAB on a command word, a flag, or an option's or argument's value from a fixed list, after words that name
 * commands and give their options and operands. Anything else (help after an option, a name from the controller or
 * a profile, free text, a word that names nothing) returns false, and the full CLI runs the line as always:
 * `serve.test.ts` holds what is served byte for byte to what the full CLI prints.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Help } from '@commander-js/extra-typings';
import { commandWords, isOption } from '../command-words.js';
import { SHELLS } from '../completion/scripts.js';
import type { Shell } from '../completion/scripts.js';
import { replies } from '../completion/replies.js';
import { typedWords } from '../completion/shell-words.js';
import { shortDescription } from '../completion/short-description.js';
import { givenValues, matching, nextArgument, offeredAgain, remainingValues } from '../completion/values.js';
import type { Candidate } from '../completion/values.js';
import { formatItem } from '../help-layout.js';
import type { CommandRecord, HelpItem, HelpRecord, OptionRecord, RootRecord } from './records.js';

const HELP_FLAGS = ['--help', '-h'];

/** The prebuilt files of one build, read when first needed. */
class Prebuilt {
  #root: RootRecord | undefined;
  constructor(private readonly dir: string) {}

  get root(): RootRecord {
    this.#root ??= JSON.parse(readFileSync(join(this.dir, 'index.json'), 'utf8')) as RootRecord;
    return this.#root;
  }

  /** The records from the root down the path `words` names, or undefined where a word names no subcommand. */
  path(words: readonly string[]): CommandRecord[] | undefined {
    const path = [this.root.command];
    for (const word of words) {
      const next = this.child(path[path.length - 1], word);
      if (next === undefined) return undefined;
      path.push(next);
    }
    return path;
  }

  /** The record of the subcommand `word` names under `parent`, or undefined where it names none. */
  child(parent: CommandRecord, word: string): CommandRecord | undefined {
    const name = Object.hasOwn(parent.words, word) ? parent.words[word] : undefined;
    if (name === undefined) return undefined;
    return parent === this.root.command ? this.topLevel(name) : parent.children[name];
  }

  private topLevel(name: string): CommandRecord {
    return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as CommandRecord;
  }
}

/** The words naming the top-level commands `argv` uses (command-words.ts), read with the root's options. */
export function commandLineWords(dir: string, argv: readonly string[]): string[] {
  const { options, command } = new Prebuilt(dir).root;
  return commandWords(options, argv, (word) => Object.hasOwn(command.words, word));
}

/**
 * Prints what `argv` asks for if it can be answered from the files in `dir`, and says whether it was. `width` is
 * the terminal's (undefined off a terminal), as commander reads it.
 */
export function serve(dir: string, argv: readonly string[], write: (text: string) => void, width?: number): boolean {
  const prebuilt = new Prebuilt(dir);
  if (argv[0] === '__complete') {
    const replies = complete(prebuilt, argv.slice(1));
    if (replies === undefined) return false;
    if (replies.length > 0) write(`${replies.join('\n')}\n`);
    return true;
  }
  const text = helpAsked(prebuilt, argv, width);
  if (text === undefined) return false;
  write(text);
  return true;
}

/** `ctl WORDS... --help`, `ctl help WORDS...` and `ctl help TOPIC`, where the words name a command. */
function helpAsked(prebuilt: Prebuilt, argv: readonly string[], width: number | undefined): string | undefined {
  const flagged = HELP_FLAGS.includes(argv[argv.length - 1]);
  const asked = flagged ? argv.slice(0, -1) : argv[0] === 'help' ? argv.slice(1) : undefined;
  if (asked === undefined || asked.some(isOption)) return undefined;
  const topic = !flagged && asked.length === 1 ? prebuilt.root.topics[asked[0]] : undefined;
  if (topic !== undefined) return `${topic}\n`;
  const help = prebuilt.path(asked)?.at(-1)?.help;
  return help ? helpText(help, width) : undefined;
}

/** A list item as commander's layout reads it: through the methods of its Help, each replaced in helpText. */
interface Listed {
  term: string;
  description: string;
  helpGroupHeading?: string;
  helpGroup(): string;
}

const listed = ([term, description, group]: HelpItem): Listed => ({
  term,
  description,
  helpGroupHeading: group ?? undefined,
  helpGroup: () => group ?? '',
});
const grouped = (group: string | null) => listed(['', '', group]);

/**
 * The help commander prints for the command `record` was made from: commander's own layout and wrapping, at the
 * terminal's width, given what the build recorded in place of the command.
 */
export function helpText(record: HelpRecord, width: number | undefined): string {
  const help = new Help();
  const term = (item: Listed) => item.term;
  const description = (item: Listed) => item.description;
  const globals = record.globalOptions?.map(listed) ?? [];
  const replaced = {
    showGlobalOptions: record.globalOptions !== null,
    padWidth: () => record.termWidth,
    commandUsage: () => record.usage,
    commandDescription: () => record.description,
    visibleArguments: () => record.arguments.map(listed),
    argumentTerm: term,
    argumentDescription: description,
    visibleOptions: () => record.options.map(listed),
    visibleGlobalOptions: () => globals,
    optionTerm: term,
    optionDescription: description,
    visibleCommands: () => record.commands.map(listed),
    subcommandTerm: term,
    subcommandDescription: description,
    formatItem,
  };
  Object.assign(help, replaced);
  help.prepareContext({ helpWidth: width });
  // formatHelp reads of the command only its lists of options and subcommands, for their headings' order.
  const command = { options: record.optionGroups.map(grouped), commands: record.commandGroups.map(grouped) };
  return record.before + help.formatHelp(command as never, help) + record.after;
}

/**
 * `ctl __complete [--shell SHELL] [--] WORDS...` when the words before the cursor name commands and give options
 * of theirs (with their values) and operands, and the word under it is a command, a flag, or the value of an option
 * or argument from a fixed list: the candidates, as the completion command prints them (completion/command.ts).
 */
function complete(prebuilt: Prebuilt, args: readonly string[]): string[] | undefined {
  let rest = args;
  let shell: Shell | undefined;
  if (rest[0] === '--shell' || rest[0]?.startsWith('--shell=')) {
    const value = rest[0] === '--shell' ? rest[1] : rest[0].slice('--shell='.length);
    shell = SHELLS.find((s) => s === value);
    if (shell === undefined) return undefined;
    rest = rest.slice(rest[0] === '--shell' ? 2 : 1);
  }
  if (rest[0] === '--') rest = rest.slice(1);
  else if (rest.some(isOption)) return undefined;
  const words = shell ? typedWords(shell, rest) : rest.map((value) => ({ value, beforeOpen: '' }));
  const values = words.map((w) => w.value);
  const current = values.at(-1) ?? '';
  const typed = values.slice(0, -1);
  if (values.includes('=') || typed.includes('--') || current.includes('=')) return undefined;
  const line = readLine(prebuilt, typed);
  if (line === undefined) return undefined;
  const { path, operands, pending, given } = line;
  const command = path[path.length - 1];
  let found: Candidate[];
  if (pending) {
    if (pending.values === undefined) return undefined;
    const before = givenValues(given, pending.key, pending.repeatable);
    found = remainingValues(pending.values, current, pending, before).map((value) => ({ value }));
  } else if (current.startsWith('-')) {
    const offered = (o: OptionRecord) => o.long !== undefined && offeredAgain(given, o.key, o.repeatable);
    found = path
      .toReversed()
      .flatMap((c) => c.options.filter(offered).map((o) => ({ value: o.long ?? '', description: o.description })));
  } else if (Object.keys(command.words).length > 0) {
    // Only the commands the word matches are described, and only for a shell that shows descriptions: shortening
    // every one, in code run once and never compiled, cost a TAB 3 ms with 40 more nouns.
    const describe = shell === 'fish' || shell === 'zsh';
    found = command.commands.flatMap((value, i) =>
      value.startsWith(current)
        ? [{ value, description: describe ? shortDescription(command.help?.commands[i]?.[1] ?? '') : undefined }]
        : [],
    );
  } else {
    const { target, given: before } = nextArgument(command.arguments, operands);
    if (target?.values === undefined) return undefined;
    found = remainingValues(target.values, current, target, before).map((value) => ({ value }));
  }
  return replies(shell, words.at(-1) ?? { value: '', beforeOpen: '' }, matching(found, current));
}

/** Where the words before the cursor lead, read as completion/candidates.ts reads them. */
interface Line {
  path: CommandRecord[];
  /** The operands of the command reached. */
  operands: string[];
  /** The option whose value comes next. */
  pending?: OptionRecord;
  /** The options given, by key, with their values. */
  given: Map<string, string[]>;
}

/**
 * Reads words that name commands, give their options (with a value where one is taken) and the operands of a
 * command without subcommands, or undefined where a word is something else: a word naming no subcommand where one
 * is due, an unknown or hidden option, `--flag=value`, a command line nested in another (`ctl as FILE ...`), which
 * the full CLI reads.
 */
function readLine(prebuilt: Prebuilt, typed: readonly string[]): Line | undefined {
  const path = [prebuilt.root.command];
  const given = new Map<string, string[]>();
  const operands: string[] = [];
  let pending: OptionRecord | undefined;
  for (const word of typed) {
    const command = path[path.length - 1];
    if (pending) {
      given.get(pending.key)?.push(word);
      pending = undefined;
    } else if (isOption(word)) {
      const named = (o: OptionRecord) => !o.help && (o.long === word || o.short === word);
      const option = path.findLast((c) => c.options.some(named))?.options.find(named);
      if (option === undefined) return undefined;
      if (!given.has(option.key)) given.set(option.key, []);
      if (option.value) pending = option;
    } else if (Object.keys(command.words).length === 0) {
      operands.push(word);
    } else {
      const next = prebuilt.child(command, word);
      if (next === undefined || next.nested) return undefined;
      path.push(next);
    }
  }
  return { path, operands, pending, given };
}
