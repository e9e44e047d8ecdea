import { Argument, Command, Help } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from './deps.js';
import { EXIT_CODE_HELP, UsageError } from '../console/errors.js';
import { completeWith } from './completion/hints.js';
import { withMeta } from './generic/meta.js';

/** Help that belongs to no single command, kept as data beside the commands (`ctl help TOPIC`). */
export interface HelpTopic {
  name: string;
  summary: string;
  /**
   * The topic's text, laid out when asked: every start lists the topics' names in the root help, and wrapping
   * every topic's text there cost each command nearly a millisecond that only `ctl help TOPIC` needs.
   */
  lines: () => readonly string[];
}

/** Topics are laid out for an 80-column terminal, as the commands' help is at that width. */
const WIDTH = 80;
const wrapper = new Help();

/** A paragraph wrapped to the width. */
function paragraph(text: string): string[] {
  return wrapper.boxWrap(text, WIDTH).split('\n');
}

/** A term and its text wrapped from `column` (under the term, when the term and its gap reach past `column`). */
function item(term: string, text: string, column: number): string[] {
  const [first = '', ...rest] = wrapper.boxWrap(text, WIDTH - column).split('\n');
  const head = `  ${term}  `;
  const indent = ' '.repeat(column);
  const lines = head.length <= column ? [head.padEnd(column) + first] : [`  ${term}`, indent + first];
  return [...lines, ...rest.map((line) => indent + line)];
}

const ENVIRONMENT: Array<[string, string]> = [
  ['CTL_PROFILE', 'profile to use, as --profile'],
  ['CTL_OUTPUT', 'output format, as -o/--output: table, wide, json or yaml'],
  ['CTL_CONTROLLER', "controller URL (several of one network: comma-separated), overriding the profile's"],
  ['CTL_TOKEN', 'session token to use instead of the stored one'],
  ['CTL_USERNAME', 'username for login and for sessions made from CTL_PASSWORD'],
  ['CTL_PASSWORD', 'password, for scripts that cannot prompt (prefer --password-stdin)'],
  ['CTL_CA', 'PEM file of the CA to verify the controller with (no saved profile needed), as --ca'],
  [
    'CTL_CA_FINGERPRINT',
    'SHA-256 fingerprint of the CA to trust among those the controller serves, as --ca-fingerprint',
  ],
  ['CTL_CONFIG_DIR', 'configuration directory (default $XDG_CONFIG_HOME/ctl, else ~/.config/ctl)'],
  ['XDG_CONFIG_HOME', 'base of the default configuration directory'],
  ['XDG_CACHE_HOME', 'base of the directory where ctl keeps its compiled code (default ~/.cache)'],
  [
    'CTL_DATA_DIR',
    'data directory of the local controller (default $XDG_DATA_HOME/ctl/controller, else ' +
      '~/.local/share/ctl/controller); used by controller start|stop|status and quickstart',
  ],
  ['CTL_ADMIN_PASSWORD', 'password of the default admin a new controller creates (ctl controller start)'],
  [
    'CTL_STORE_URL',
    'where ctl controller start keeps its data, as --store: postgres://user@host:port/db (default: SQLite in the ' +
      'data directory)',
  ],
  [
    'CTL_PKI_KEY_FILE',
    'the secret sealing the CA keys kept in the database, as --pki-key-file: every controller on one database ' +
      'given the same file shares one PKI',
  ],
  ['CTL_CONSOLE_DIR', 'built web console ctl controller start serves under /zac/, as --console'],
  [
    'CTL_SQLITE_BINDING',
    'path of a better_sqlite3.node to load instead of the installed one (a binary built elsewhere for the same ' +
      'Node.js and platform)',
  ],
  [
    'CTL_ERROR_STACK',
    'any value: an unexpected error (a bug in ctl) is printed with its stack, as --debug prints it, without running ' +
      'the command on the build --debug runs (for a failure that does not repeat)',
  ],
  ['NO_COLOR', 'any value turns colour off; FORCE_COLOR turns it on even in a pipe'],
  ['TERM=dumb', 'no colour'],
  ['CI', 'any value: never prompt (as --no-input)'],
];

export const HELP_TOPICS: readonly HelpTopic[] = [
  {
    name: 'exit-codes',
    summary: 'what each exit status of ctl means',
    lines: () => [
      'Exit status of every ctl command:',
      '',
      ...EXIT_CODE_HELP.flatMap(([code, text]) => item(String(code).padStart(3), text, 7)),
    ],
  },
  {
    name: 'environment',
    summary: 'environment variables ctl reads',
    lines: () => [
      'Environment variables (a flag given on the command line wins over its variable):',
      '',
      ...ENVIRONMENT.flatMap(([name, text]) => item(name, text, 20)),
      '',
      ...paragraph(
        'Which controller and credentials: --profile wins outright; otherwise CTL_PROFILE selects the profile ' +
          'and CTL_CONTROLLER, CTL_CA, CTL_CA_FINGERPRINT, CTL_TOKEN, CTL_USERNAME and CTL_PASSWORD override its ' +
          "values; then the current profile ('ctl profile use NAME'); then the profile named 'default'.",
      ),
    ],
  },
  {
    name: 'filters',
    summary: 'the ZitiQL filter that list commands take',
    // Laid out by hand: each example stays whole on its line.
    lines: () => [
      ...paragraph(
        'List commands take a ZitiQL filter as their argument, sent to the controller as it is: quote it for the ' +
          'shell.',
      ),
      '',
      '  comparisons   name = "web"   isAdmin = true   externalId = null',
      '                createdAt > datetime(2025-01-02T03:04:05Z)',
      '                =  !=  <  <=  >  >=',
      '  text          name contains "lap"   name icontains "LAP"',
      '                (no startsWith/endsWith)',
      '  sets          name in ["laptop-7", "web"]',
      '                createdAt between datetime(...) and datetime(...)',
      '                (both take "not")',
      '  attributes    anyOf(roleAttributes) = "sales"   isEmpty(roleAttributes)',
      '                count(roleAttributes) > 2',
      '  tags          tags.env = "prod"',
      '  references    type.name = "intercept.v1" (configs)',
      '                identity.name = "laptop-7" (enrollments, authenticators)',
      '  combining     and  or  not  ( )',
      '                (not takes all that follows it: write (not a = 1) and b = 2)',
      '  suffixes      sort by name asc, createdAt desc   then   skip 10',
      '                then   limit 50 | limit none  (in this order)',
      '',
      'Examples:',
      '  $ ctl identity list \'name contains "lap" sort by name\'',
      '  $ ctl identity list \'anyOf(roleAttributes) = "sales" and isAdmin = false\' -q',
      '',
      ...paragraph(
        'Prefer --limit, --offset and --all to skip/limit in the filter: ctl then reports what was shown and what ' +
          'is left. Filtering on a field the controller does not expose fails with INVALID_FILTER (exit 6).',
      ),
    ],
  },
];

export function topicText(name: string): string | undefined {
  return HELP_TOPICS.find((t) => t.name === name)
    ?.lines()
    .join('\n');
}

/** Lines for the root help: the topics and what each is about. */
export function topicsSummary(): string {
  const width = Math.max(...HELP_TOPICS.map((t) => t.name.length));
  return ['Help topics (ctl help TOPIC):', ...HELP_TOPICS.map((t) => `  ${t.name.padEnd(width)}  ${t.summary}`)].join(
    '\n',
  );
}

/** The command a path of names or aliases leads to, from the root; undefined if any word matches nothing. */
export function findCommand(root: CommandUnknownOpts, words: readonly string[]): CommandUnknownOpts | undefined {
  let command: CommandUnknownOpts | undefined = root;
  for (const word of words) {
    command = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!command) return undefined;
  }
  return command;
}

export interface HelpOptions {
  words: string[];
  root: CommandUnknownOpts;
}

export function buildHelp(deps: Deps, run = runHelp): CommandUnknownOpts {
  const command = withMeta(
    new Command('help').addArgument(
      completeWith(new Argument('[topic-or-command...]', 'a help topic, or a command path'), { kind: 'help' }),
    ),
    {
      description: 'Show help for a command or a topic (exit-codes, environment, filters)',
      examples: ['ctl help identity create', 'ctl help exit-codes', 'ctl help filters'],
    },
  );
  return command.action(async (words, _opts, cmd) => run({ words, root: cmd.parent ?? cmd }, deps));
}

export async function runHelp(opts: HelpOptions, deps: Deps): Promise<void> {
  const topic = opts.words.length === 1 ? topicText(opts.words[0]) : undefined;
  if (topic !== undefined) {
    deps.io.out(topic);
    return;
  }
  const command = findCommand(opts.root, opts.words);
  if (!command) {
    throw new UsageError(`no help topic or command '${opts.words.join(' ')}'`, [
      `topics: ${HELP_TOPICS.map((t) => t.name).join(', ')}`,
    ]);
  }
  command.outputHelp();
}
