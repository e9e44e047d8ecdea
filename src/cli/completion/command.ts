import { Argument, Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { candidates } from './candidates.js';
import type { DynamicValues } from './candidates.js';
import { SHELLS, completionScript } from './scripts.js';
import type { Shell } from './scripts.js';
import { replies } from './replies.js';
import { typedWords } from './shell-words.js';

export interface CompletionOptions {
  shell: Shell;
}

export function buildCompletion(deps: Deps, run = runCompletion): CommandUnknownOpts {
  const command = withMeta(
    new Command('completion').addArgument(new Argument('<shell>', 'the shell').choices(SHELLS)),
    {
      description: 'Print the shell completion script for bash, zsh or fish (it never edits your rc files)',
      examples: [
        'source <(ctl completion bash)',
        'ctl completion zsh > "${fpath[1]}/_ctl"',
        'ctl completion fish > ~/.config/fish/completions/ctl.fish',
      ],
    },
  );
  return command.action(async (shell) => run({ shell }, deps));
}

export async function runCompletion(opts: CompletionOptions, deps: Deps): Promise<void> {
  deps.io.out(completionScript(opts.shell).trimEnd());
}

export interface CompleteOptions {
  root: CommandUnknownOpts;
  /** The words after `ctl`, the last being the one under the cursor. */
  words: string[];
  /** The shell whose script passes the words as typed (quotes and all); without it they are taken as values. */
  shell?: Shell;
  dynamic: DynamicValues;
}

/**
 * `ctl __complete -- WORDS...`: what the completion scripts call on each TAB. Hidden; prints one candidate per line,
 * for fish and zsh with its description after a tab where it has one (replies.ts).
 */
export function buildComplete(deps: Deps, run = runComplete): CommandUnknownOpts {
  const command = withMeta(new Command('__complete').argument('[words...]', 'the words typed so far, after --'), {
    description: 'Print completion candidates for the words typed so far (used by the completion scripts)',
    examples: ['ctl __complete -- identity ""', `ctl __complete --shell bash -- identity show "'lap"`],
  });
  return command
    .addOption(new Option('--shell <shell>', 'the words are as that shell passes them, quotes and all').choices(SHELLS))
    .helpOption(false)
    .action(async (words, opts, cmd) => {
      await run({ root: rootOf(cmd), words, shell: opts.shell, dynamic: lazyDynamicValues(deps) }, deps);
    });
}

/**
 * Values from outside (profiles on disk, names from the controller), loaded only when a TAB needs them: most TABs
 * complete commands and flags, and should not pay for the profile store and the catalogue.
 */
function lazyDynamicValues(deps: Deps): DynamicValues {
  return async (source) => (await import('./dynamic.js')).dynamicValues(deps)(source);
}

function rootOf(command: CommandUnknownOpts): CommandUnknownOpts {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * Candidates are found for what the words mean (`'#sa` is `#sa`). zsh and fish quote what they insert to match the
 * word on the line; bash inserts each line as printed, so its candidates come quoted for the place they go
 * (replies.ts, which also says where descriptions go).
 */
export async function runComplete(opts: CompleteOptions, deps: Deps): Promise<void> {
  const asValues = () => opts.words.map((value) => ({ value, beforeOpen: '' }));
  const words = opts.shell ? typedWords(opts.shell, opts.words) : asValues();
  const found = await candidates(
    opts.root,
    words.map((w) => w.value),
    opts.dynamic,
  );
  const lines = replies(opts.shell, words.at(-1) ?? { value: '', beforeOpen: '' }, found);
  if (lines.length > 0) deps.io.out(lines.join('\n'));
}
