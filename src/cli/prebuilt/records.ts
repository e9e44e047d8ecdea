/**
 * What `ctl --help`, `ctl help ...` and a TAB on command words, flags and their fixed values print depends only on
 * the build: the build writes it here from the same commander tree the CLI runs (make.ts), so that bin/ctl.js serves
 * those lines from a small file without compiling the CLI (serve.ts). One file for the root, one per top-level
 * command: a line reads the root's and at most one other, whatever the number of nouns.
 */
import type { Argument, CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import type { RootOption } from '../command-words.js';
import { hintFor } from '../completion/hints.js';
import { fixedValues, repeatable, valueForm } from '../completion/option-facts.js';
import type { ValueForm } from '../completion/values.js';
import { shortDescription } from '../completion/short-description.js';

/** A help list's line: the term, its description and, for options and commands, the heading it is listed under. */
export type HelpItem = [term: string, description: string, group?: string | null];

/**
 * What commander's help layout is given for one command: every width-dependent step (wrapping to the terminal) is
 * left to commander's own Help at the time it is printed.
 */
export interface HelpRecord {
  usage: string;
  description: string;
  /** The width of the terms' column. */
  termWidth: number;
  arguments: HelpItem[];
  options: HelpItem[];
  /** The heading of every option, hidden ones included: the headings are listed in the order they first appear. */
  optionGroups: (string | null)[];
  /** Global options listed below the command's own, or null where the help shows none. */
  globalOptions: HelpItem[] | null;
  commands: HelpItem[];
  /** The heading of every subcommand, hidden ones included, as for options. */
  commandGroups: (string | null)[];
  /** What the command's help prints before and after commander's layout (addHelpText). */
  before: string;
  after: string;
}

export interface CommandRecord {
  /** Null for a command without a help option (`__complete`). */
  help: HelpRecord | null;
  /** Every word naming a subcommand (names and aliases, hidden ones too), to the subcommand's name. */
  words: Record<string, string>;
  /**
   * The visible subcommands' names, in help order: what a TAB completes to. Their descriptions are those of the
   * help's list (the root's file would hold each noun's twice).
   */
  commands: string[];
  /** The command's own visible options. */
  options: OptionRecord[];
  /** Its arguments, in order. */
  arguments: ArgumentRecord[];
  /** The words after its operands are another command line (`ctl as FILE services`): completed the full way. */
  nested: boolean;
  /** The subcommands' records, by name; a top-level command's are in its own file. */
  children: Record<string, CommandRecord>;
}

/** What completion reads of an option (completion/option-facts.ts), to read a line and to offer its flag. */
export interface OptionRecord extends ValueForm {
  long?: string;
  short?: string;
  /** commander's attribute name, which `--x` and `--no-x` share. */
  key: string;
  description: string;
  /** Takes the next word as its value (`--output <format>`). */
  value: boolean;
  repeatable: boolean;
  /** Its values, where they come from a fixed list, written as its ValueForm says. */
  values?: readonly string[];
  /** The help option, offered but not read as an option of the line (commander acts on it before parsing). */
  help?: true;
}

/** What completion reads of an argument: its values, where they come from a fixed list. */
export interface ArgumentRecord extends ValueForm {
  values?: readonly string[];
  variadic?: true;
}

/** The root's file, `index.json`. */
export interface RootRecord {
  /** The root's options, which `command-words.ts` skips (with their values) to find the command a line runs. */
  options: RootOption[];
  /** `ctl help TOPIC`: each topic's text. */
  topics: Record<string, string>;
  /** The root, its children left empty: each is in the file named after it. */
  command: CommandRecord;
}

/**
 * The help commander prints for `command` in a terminal `width` columns wide (its default, 80, unless told),
 * captured instead of written: what the records are checked against, and what tests compare help with.
 */
export function printedHelp(command: CommandUnknownOpts, width = 80): string {
  let text = '';
  const saved = command.configureOutput();
  command.configureOutput({ ...saved, writeOut: (s) => void (text += s), getOutHelpWidth: () => width });
  try {
    command.outputHelp();
  } finally {
    command.configureOutput(saved);
  }
  return text;
}

function helpRecord(command: CommandUnknownOpts): HelpRecord {
  const help = command.createHelp();
  help.prepareContext({ helpWidth: 80 });
  const body = help.formatHelp(command, help);
  const printed = printedHelp(command);
  const at = printed.indexOf(body);
  if (at < 0) throw new Error(`the help of '${command.name()}' is not commander's layout with text around it`);
  const globals = help.showGlobalOptions ? help.visibleGlobalOptions(command) : undefined;
  return {
    usage: help.commandUsage(command),
    description: help.commandDescription(command),
    termWidth: help.padWidth(command, help),
    arguments: help.visibleArguments(command).map((a) => [help.argumentTerm(a), help.argumentDescription(a)]),
    options: help
      .visibleOptions(command)
      .map((o) => [help.optionTerm(o), help.optionDescription(o), o.helpGroupHeading ?? null]),
    optionGroups: command.options.map((o) => o.helpGroupHeading ?? null),
    globalOptions: globals?.map((o) => [help.optionTerm(o), help.optionDescription(o)]) ?? null,
    commands: help
      .visibleCommands(command)
      .map((c) => [help.subcommandTerm(c), help.subcommandDescription(c), c.helpGroup() || null]),
    commandGroups: command.commands.map((c) => c.helpGroup() || null),
    before: printed.slice(0, at),
    after: printed.slice(at + body.length),
  };
}

function optionRecord(command: CommandUnknownOpts, option: Option): OptionRecord {
  const values = fixedValues(option);
  return {
    ...(option.long ? { long: option.long } : {}),
    ...(option.short ? { short: option.short } : {}),
    key: option.attributeName(),
    description: shortDescription(option.description),
    value: Boolean(option.required),
    repeatable: repeatable(option),
    ...(values ? { values, ...valueForm(option) } : {}),
    ...(command.options.includes(option) ? {} : { help: true as const }),
  };
}

function argumentRecord(argument: Argument): ArgumentRecord {
  const values = fixedValues(argument);
  return {
    ...(values ? { values, ...valueForm(argument) } : {}),
    ...(argument.variadic ? { variadic: true as const } : {}),
  };
}

/** The record of `command` and, unless `shallow`, of everything below it. */
export function commandRecord(command: CommandUnknownOpts, shallow = false): CommandRecord {
  const help = command.createHelp();
  const hasHelp = help.visibleOptions(command).some((o) => o.long === '--help');
  const hint = hintFor(command);
  if (!hasHelp && help.visibleCommands(command).length > 0)
    throw new Error(`'${command.name()}' lists subcommands without a help option: a TAB would lack their descriptions`);
  return {
    help: hasHelp ? helpRecord(command) : null,
    words: Object.fromEntries(command.commands.flatMap((c) => [c.name(), ...c.aliases()].map((w) => [w, c.name()]))),
    commands: help.visibleCommands(command).map((c) => c.name()),
    options: help.visibleOptions(command).map((o) => optionRecord(command, o)),
    arguments: command.registeredArguments.map(argumentRecord),
    nested: hint?.kind === 'commands',
    children: shallow ? {} : Object.fromEntries(command.commands.map((c) => [c.name(), commandRecord(c)])),
  };
}

/** The files the build writes into dist/prebuilt/, by name, from the whole tree `root`. */
export function prebuiltFiles(root: CommandUnknownOpts, topics: Record<string, string>): Record<string, string> {
  const index: RootRecord = {
    options: root.options.map((o) => ({ long: o.long, short: o.short, required: o.required, optional: o.optional })),
    topics,
    command: commandRecord(root, true),
  };
  const files: Record<string, string> = { 'index.json': JSON.stringify(index) };
  for (const command of root.commands) files[`${command.name()}.json`] = JSON.stringify(commandRecord(command));
  return files;
}
