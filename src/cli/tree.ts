import { Command, Help } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { commandWords, rootOperands } from './command-words.js';
import type { Deps } from './deps.js';
import { NOUNS } from './nouns/summary.js';
import type { NounSummary } from './nouns/summary.js';
import type { NounModule } from './nouns/verbs.js';

/**
 * The top level of the command tree, in one place. The root knows each command only by cheap data (name, aliases,
 * a line for help, its group); the code below it is imported, as a chunk of its own, only when argv selects that
 * command (or asks for its help, or completes its words). Start-up therefore costs the same with six nouns or fifty.
 */
export interface TopCommand {
  name: string;
  aliases: readonly string[];
  /** The line beside the name in `ctl --help`. */
  summary: string;
  /** Heading the command is listed under in the root help. */
  group?: string;
  /** Left out of help and completion (machinery such as `__complete`). */
  hidden?: boolean;
  /**
   * The command with what is below it: everything, or where `words` (the operands after the command's own word on
   * a line that runs it) name one of its subcommands, only that one, as commander will dispatch to no other.
   */
  load(deps: Deps, words?: readonly string[]): Promise<CommandUnknownOpts>;
}

/** A noun's own verbs, replacing or adding to those derived from the catalogue; loaded with the noun. */
export interface NounCommands {
  noun: string;
  load(): Promise<NounModule>;
}

export function nounCommands(noun: string, load: () => Promise<NounModule>): NounCommands {
  return { noun, load };
}

/**
 * The nouns whose commands are more than the generic ones. A resource added to the catalogue with a `cli` entry
 * needs no line here: its noun, verbs, flags and columns come from the catalogue.
 */
export const NOUN_COMMANDS: readonly NounCommands[] = [
  nounCommands('identity', () => import('./identity/index.js')),
  nounCommands('posture-check', () => import('./posture-check/index.js')),
  nounCommands('config', () => import('./config/index.js')),
  nounCommands('service', () => import('./service/index.js')),
  nounCommands('router', () => import('./router/index.js')),
  nounCommands('transit-router', () => import('./transit-router/index.js')),
  nounCommands('terminator', () => import('./terminator/index.js')),
  nounCommands('enrollment', () => import('./enrollment/index.js')),
  nounCommands('ca', () => import('./ca/index.js')),
  nounCommands('authenticator', () => import('./authenticator/index.js')),
  nounCommands('signer', () => import('./signer/index.js')),
  nounCommands('auth-policy', () => import('./auth-policy/index.js')),
];

const SESSION = 'Session';
const CONTROLLER = 'Local controller';
const NETWORK = 'Network as code';
const OTHER = 'Other';

function command(
  name: string,
  group: string | undefined,
  summary: string,
  load: TopCommand['load'],
  hidden = false,
): TopCommand {
  return { name, aliases: [], summary, group, hidden, load };
}

/** Each catalogue noun, its verbs derived from its definition (nouns/verbs.ts) plus its own (NOUN_COMMANDS). */
export function nounCommand(summary: NounSummary, own: readonly NounCommands[] = NOUN_COMMANDS): TopCommand {
  const mine = own.find((o) => o.noun === summary.noun);
  return {
    name: summary.noun,
    aliases: summary.aliases,
    summary: summary.description,
    group: summary.group,
    load: async (deps, words) => {
      const [{ buildNounCommand }, module] = await Promise.all([import('./nouns/verbs.js'), mine?.load()]);
      return buildNounCommand(deps, summary, module?.verbs, words?.[0]);
    },
  };
}

/** The top-level commands in the order of the root help; groups are listed in the order they first appear. */
export function topCommands(nouns: readonly NounSummary[] = NOUNS): TopCommand[] {
  return [
    command('login', SESSION, 'Log in to a controller and keep the session in a profile', async (d) =>
      (await import('./session/login.js')).buildLogin(d),
    ),
    command('logout', SESSION, 'End the session on the controller, then forget it locally', async (d) =>
      (await import('./session/logout.js')).buildLogout(d),
    ),
    command('whoami', SESSION, 'Show who you are logged in as, on which profile and controller', async (d) =>
      (await import('./session/whoami.js')).buildWhoami(d),
    ),
    command(
      'enroll',
      SESSION,
      'Redeem an enrollment JWT: make a key, get a certificate, write an identity file',
      async (d) => (await import('./enroll/index.js')).buildEnroll(d),
    ),
    command(
      'mfa',
      SESSION,
      'Set up and manage TOTP multi-factor authentication for the identity you are logged in as',
      async (d) => (await import('./mfa/index.js')).buildMfa(d),
    ),
    command(
      'as',
      SESSION,
      'See the network as an identity does, with its identity file: services, sessions, posture, routers',
      async (d) => (await import('./as/index.js')).buildAs(d),
    ),
    command(
      'profile',
      SESSION,
      'Manage saved profiles: a controller, its trusted CA, a user and their session',
      async (d) => (await import('./profile/index.js')).buildProfile(d),
    ),
    ...nouns.map((n) => nounCommand(n)),
    {
      ...command(
        'policy',
        'Policies and posture',
        'Create, list, change and explain policies: who may dial, bind, and use which routers',
        async (d) => (await import('./policy/index.js')).buildPolicy(d),
      ),
      aliases: ['policies'],
    },
    command(
      'export',
      NETWORK,
      'Write the network as a file to keep in git: names instead of ids, no secrets, stable order',
      async (d) => (await import('./ascode/export.js')).buildExport(d),
    ),
    command(
      'diff',
      NETWORK,
      'Show what apply would change to make the controller match a network file (exit 2 on changes)',
      async (d) => (await import('./ascode/diff.js')).buildDiff(d),
    ),
    command(
      'apply',
      NETWORK,
      'Make the controller match a network file: create and update by name, in dependency order',
      async (d) => (await import('./ascode/apply.js')).buildApply(d),
    ),
    command('controller', CONTROLLER, 'Run and manage the embedded reference controller', async (d) =>
      (await import('./controller/index.js')).buildController(d),
    ),
    command(
      'quickstart',
      CONTROLLER,
      'Start a local controller (or reuse the running one) and log in a profile to it',
      async (d) => (await import('./controller/quickstart.js')).buildQuickstart(d),
    ),
    command(
      'api',
      OTHER,
      'Call any controller endpoint with the stored session and print the JSON response',
      async (d) => (await import('./session/api.js')).buildApi(d),
    ),
    command(
      'version',
      OTHER,
      "Show the version of ctl and, when a controller is configured, the controller's",
      async (d) => (await import('./session/version.js')).buildVersion(d),
    ),
    command('completion', OTHER, 'Print the shell completion script for bash, zsh or fish', async (d) =>
      (await import('./completion/command.js')).buildCompletion(d),
    ),
    command('help', OTHER, 'Show help for a command or a topic (exit-codes, environment, filters)', async (d) =>
      (await import('./help-topics.js')).buildHelp(d),
    ),
    command(
      '__complete',
      undefined,
      'Print completion candidates for the words typed so far',
      async (d) => (await import('./completion/command.js')).buildComplete(d),
      true,
    ),
  ];
}

/** Every command below `command` with its full path (`identity create`), parents before children. */
export function* walk(command: CommandUnknownOpts, path = ''): Generator<[string, CommandUnknownOpts]> {
  for (const child of command.commands) {
    const childPath = path === '' ? child.name() : `${path} ${child.name()}`;
    yield [childPath, child];
    yield* walk(child, childPath);
  }
}

/**
 * Attaches the top-level commands to `root`: those `argv` selects (all of them without argv) with everything below
 * them, the others as stubs that only list in help. Fails at start-up, never at the user's command, on two commands
 * of one name or alias, own verbs registered for a noun the catalogue lacks, or a command built under another name.
 */
export async function assemble(
  root: CommandUnknownOpts,
  deps: Deps,
  argv?: readonly string[],
  entries: readonly TopCommand[] = topCommands(),
  own: readonly NounCommands[] = NOUN_COMMANDS,
): Promise<CommandUnknownOpts> {
  const byWord = new Map<string, TopCommand>();
  for (const entry of entries) {
    for (const word of [entry.name, ...entry.aliases]) {
      if (byWord.has(word)) throw new Error(`command '${word}' is declared twice`);
      byWord.set(word, entry);
    }
  }
  for (const o of own)
    if (!byWord.has(o.noun))
      throw new Error(`own commands registered for '${o.noun}', which is no noun of the catalogue`);
  const wanted = argv === undefined ? undefined : selected(root, argv, byWord);
  // The words after the command a line runs; not after `help` or `__complete`'s, whose command lists all it has.
  const [word, ...words] = argv === undefined ? [] : rootOperands(root.options, argv);
  const runs = word === undefined ? undefined : byWord.get(word);
  const built = await Promise.all(
    entries.map((entry) =>
      wanted === undefined || wanted.has(entry) ? loaded(entry, deps, entry === runs ? words : undefined) : stub(entry),
    ),
  );
  root.configureHelp({ ...root.configureHelp(), subcommandTerm: (command) => termOf(command) });
  entries.forEach((entry, i) => {
    const command = built[i];
    if (entry.group) command.helpGroup(`${entry.group}:`);
    root.addCommand(command, { hidden: entry.hidden });
  });
  for (const [path, command] of walk(root)) inheritRootSettings(command, root, path);
  return root;
}

/**
 * How a command is named in its parent's help. Top-level commands by name and first alias only, as a stub knows
 * them, so that the root help reads the same whether a command is loaded or not; below, with their arguments.
 */
function termOf(command: CommandUnknownOpts): string {
  if (command.parent?.parent) return new Help().subcommandTerm(command);
  const alias = command.aliases()[0];
  return alias === undefined ? command.name() : `${command.name()}|${alias}`;
}

async function loaded(entry: TopCommand, deps: Deps, words?: readonly string[]): Promise<CommandUnknownOpts> {
  const command = await entry.load(deps, words);
  if (command.name() !== entry.name) throw new Error(`command '${entry.name}' is built as '${command.name()}'`);
  const aliases = command.aliases();
  if (aliases.length !== entry.aliases.length || aliases.some((a, i) => a !== entry.aliases[i])) {
    throw new Error(
      `command '${entry.name}' is built with aliases ` +
        `[${aliases.join(', ')}], declared with [${entry.aliases.join(', ')}]`,
    );
  }
  // The root help lists the same line whether the command is loaded or not; its own help keeps its description.
  if (command.description() !== entry.summary) command.summary(entry.summary);
  return command;
}

/**
 * What stands in for a command argv did not select: enough for the root help, completion of top-level words and
 * "did you mean". Never run: the selection below follows commander's own rules, and a stub reached anyway fails
 * loudly instead of doing nothing.
 */
function stub(entry: TopCommand): CommandUnknownOpts {
  return new Command(entry.name)
    .description(entry.summary)
    .aliases(entry.aliases)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new Error(`internal error: command '${entry.name}' was run without being loaded`);
    });
}

/**
 * The top-level commands a command line uses: the one it runs and, for `help` and `__complete`, the one whose
 * help or words it asks about. Mirrors commander: the root's own options (and their values) are skipped wherever
 * they stand, `--` ends options, and an unknown option ends the operands the root dispatches on, except in the words
 * a completion reads (command-words.ts).
 */
export function selected(
  root: CommandUnknownOpts,
  argv: readonly string[],
  byWord: ReadonlyMap<string, TopCommand>,
): Set<TopCommand> {
  const out = new Set<TopCommand>();
  const [first, about] = commandWords(root.options, argv, (word) => byWord.has(word)).map((word) => byWord.get(word));
  if (!first) return out;
  out.add(first);
  if (about) out.add(about);
  return out;
}

/**
 * What the root decides for every command, however it was built: where output goes, the help layout, that errors
 * are thrown to main() instead of exiting, no implicit `help` subcommands (`ctl help ...` serves them all), and a
 * usage error pointing at the command's own help.
 * Chosen one by one rather than with copyInheritedSettings, which would also reset a builder's own parsing choices.
 */
function inheritRootSettings(command: CommandUnknownOpts, root: CommandUnknownOpts, path: string): void {
  command.configureOutput(root.configureOutput());
  command.configureHelp(root.configureHelp());
  command.exitOverride();
  command.helpCommand(false);
  command.showHelpAfterError(usageHint(path));
}

/** The line under a usage error: where to read how the command is used. */
export function usageHint(path: string): string {
  return `(see 'ctl ${path === '' ? '' : `${path} `}--help')`;
}
