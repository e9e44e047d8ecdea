import { Argument, Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { candidates } from './candidates.js';
import type { DynamicValues } from './candidates.js';
import { SHELLS, completionScript } from './scripts.js';
import type { Shell } from './scripts.js';

export interface CompletionOptions {
  shell: Shell;
}

export function buildCompletion(deps: Deps, run = runCompletion): CommandUnknownOpts {
  const command = withMeta(new Command('completion').addArgument(new Argument('<shell>', 'the shell').choices(SHELLS)), {
    description: 'Print the shell completion script for bash, zsh or fish (it never edits your rc files)',
    examples: ['source <(ctl completion bash)', 'ctl completion zsh > "${fpath[1]}/_ctl"', 'ctl completion fish > ~/.config/fish/completions/ctl.fish'],
  });
  return command.action(async (shell) => run({ shell }, deps));
}

export async function runCompletion(opts: CompletionOptions, deps: Deps): Promise<void> {
  deps.io.out(completionScript(opts.shell).trimEnd());
}

export interface CompleteOptions {
  root: CommandUnknownOpts;
  /** The words after `ctl`, the last being the one under the cursor. */
  words: string[];
  dynamic: DynamicValues;
}

/** `ctl __complete -- WORDS...`: what the completion scripts call on each TAB. Hidden; prints one candidate per line. */
export function buildComplete(deps: Deps, run = runComplete): CommandUnknownOpts {
  const command = withMeta(new Command('__complete').argument('[words...]', 'the words typed so far, after --'), {
    description: 'Print completion candidates for the words typed so far (used by the completion scripts)',
    examples: ['ctl __complete -- identity ""'],
  });
  return command
    .helpOption(false)
    .action(async (words, _opts, cmd) => run({ root: rootOf(cmd), words, dynamic: lazyDynamicValues(deps) }, deps));
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

export async function runComplete(opts: CompleteOptions, deps: Deps): Promise<void> {
  const found = await candidates(opts.root, opts.words, opts.dynamic);
  if (found.length > 0) deps.io.out(found.join('\n'));
}
