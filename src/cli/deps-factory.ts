// Wires the collaborators every command receives. Nothing here is loaded or opened until an action asks for it:
// this module is imported at start-up, so it imports types only and loads the rest on first use.
import type { Deps, GlobalOptions, Prompter } from './deps.js';
import type { IO } from '../console/io.js';
import type { SessionManager } from '../client/session-manager.js';

export interface DepsSettings {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: () => GlobalOptions;
}

export function createDeps(settings: DepsSettings): Deps {
  const { io, env, globals } = settings;
  let sessions: Promise<SessionManager> | undefined;
  const deps: Deps = {
    io,
    env,
    globals,
    sessions: () =>
      (sessions ??= import('../client/session-manager.js').then((m) =>
        m.createSessionManager({ env, io, profileFlag: globals().profile, prompter: deps.prompter, net: netOptions(io, globals()) }),
      )),
    api: async () => (await deps.sessions()).client(),
    prompter: async () => createInquirerPrompter(io),
    clock: () => new Date(),
  };
  return deps;
}

/** --timeout and --verbose, as the HTTP client takes them. */
function netOptions(io: IO, g: GlobalOptions) {
  return { timeoutMs: g.timeoutMs, trace: g.verbose ? (line: string) => io.info(`> ${line}`) : undefined };
}

/**
 * Prompts on stderr (stdout carries only results), reading the IO's stdin. Ctrl-C rejects with inquirer's
 * ExitPromptError, which main() reports as an interruption (exit 130).
 */
export function createInquirerPrompter(io: IO): Prompter {
  const context = { input: io.stdin, output: io.stderr };
  return {
    async input(message, opts) {
      const { input } = await import('@inquirer/prompts');
      return input({ message, default: opts?.default }, context);
    },
    async password(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message }, context);
    },
    async confirm(message, opts) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: opts?.default }, context);
    },
  };
}
