/**
 * Which top-level commands a command line uses, read from argv as commander dispatches it. Plain data in, words
 * out: tree.ts loads the commands these words name, and bin/ctl.js (through the prebuilt script) chooses the build
 * a line runs on by them, before any of the CLI is compiled.
 */
import { SHELLS } from './completion/scripts.js';
import { typedWords } from './completion/shell-words.js';

/** What is read of an option of the root: its flags and whether it takes a value. */
export interface RootOption {
  long?: string;
  short?: string;
  /** Takes a value (`--profile <name>`). */
  required: boolean;
  /** May take a value (`--flag [value]`). */
  optional: boolean;
}

/** An option word (`-o`, `--output=json`); a lone `-` is an operand (standard input, by convention). */
export const isOption = (word: string) => word.length > 1 && word.startsWith('-');

/**
 * The non-option words commander keeps at the root of `argv`, in order; the first one selects the command.
 * With `isCommand`, they are read for completion instead, which goes on past an unknown option (running the line
 * would fail on it, but what follows is still worth completing): the word after one, unless it names a command or
 * the option ends in `=value`, is taken as its value, as the option may take one (completion/candidates.ts reads
 * the words below the root the same way).
 */
export function rootOperands(
  options: readonly RootOption[],
  argv: readonly string[],
  isCommand?: (word: string) => boolean,
): string[] {
  const operands: string[] = [];
  const known = (flag: string) => options.find((o) => o.long === flag || o.short === flag);
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (isOption(word)) {
      const option = known(word);
      const next = argv[i + 1];
      if (option) {
        if (option.required || (option.optional && next !== undefined && !isOption(next))) i++;
        continue;
      }
      if (!word.startsWith('--') && word.length > 2 && known(word.slice(0, 2))) continue; // -ojson
      if (/^--[^=]+=/.test(word) && known(word.slice(0, word.indexOf('=')))) continue; // --output=json
      // An unknown option (or --help): commander passes it and all further words to the subcommand.
      if (isCommand === undefined) break;
      if (!word.includes('=') && next !== undefined && !isOption(next) && !isCommand(next)) i++;
      continue;
    }
    operands.push(word);
  }
  return operands;
}

/**
 * The words naming the top-level commands a command line uses: the one it runs and, after `help` and `__complete`,
 * the one whose help or words it asks about. Words that name no command are the caller's to ignore. `isCommand`
 * says which words name a top-level command (a name or an alias).
 */
export function commandWords(
  options: readonly RootOption[],
  argv: readonly string[],
  isCommand: (word: string) => boolean,
): string[] {
  const [first, ...rest] = rootOperands(options, argv);
  if (first === undefined) return [];
  // `ctl help identity create`: the words name a command. `ctl __complete [--shell bash] -- identity sh`: all words
  // after `--` but the last (the one under the cursor) were typed as a command line, quotes and all with --shell.
  const typed = argv.includes('--') ? argv.slice(argv.indexOf('--') + 1) : rest;
  const completed = () => rootOperands(options, unquoted(argv, typed).slice(0, -1), isCommand)[0];
  const about = first === 'help' ? rest[0] : first === '__complete' ? completed() : undefined;
  return about === undefined ? [first] : [first, about];
}

/** `words` as they mean, where `__complete --shell SHELL` says they are as that shell holds them. */
function unquoted(argv: readonly string[], words: readonly string[]): string[] {
  const at = argv.indexOf('--shell');
  const shell = SHELLS.find((s) => at >= 0 && at < argv.indexOf('--') && argv[at + 1] === s);
  return shell ? typedWords(shell, words).map((w) => w.value) : [...words];
}
