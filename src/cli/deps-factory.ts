// Wires the collaborators every command receives. Nothing here is loaded or opened until an action asks for it:
// this module is imported at start-up, so it imports types and what main() has loaded already, and the rest on
// first use.
import type { Deps, GlobalOptions, Prompter } from './deps.js';
import { DeclinedError } from '../console/errors.js';
import type { IO } from '../console/io.js';
import { failIfIdle } from '../console/process-exit.js';
import type { SessionManager } from '../client/session-manager.js';
import type { ConnectionPools } from '../client/pools.js';
import type { NetOptions } from '../client/http.js';

export interface DepsSettings {
  io: IO;
  env: NodeJS.ProcessEnv;
  globals: () => GlobalOptions;
  /** Where the clients of this run register their connection pools (run() closes them when the command ends). */
  pools?: ConnectionPools;
}

/** The collaborators, and what the run calls once the command is over, failed or not. */
export interface RunDeps extends Deps {
  /** Ends what this run opened and saved nowhere (a CTL_USERNAME/CTL_PASSWORD session). */
  finish(): Promise<void>;
}

export function createDeps(settings: DepsSettings): RunDeps {
  const { io, env, globals, pools } = settings;
  let sessions: Promise<SessionManager> | undefined;
  const deps: RunDeps = {
    io,
    env,
    globals,
    sessions: () =>
      (sessions ??= import('../client/session-manager.js').then((m) =>
        m.createSessionManager({ env, io, profileFlag: globals().profile, prompter: deps.prompter, net: deps.net() }),
      )),
    api: async () => (await deps.sessions()).client(),
    prompter: async () => createInquirerPrompter(io),
    net: () => netOptions(io, globals(), pools),
    clock: () => new Date(),
    finish: async () => {
      if (sessions) await (await sessions.catch(() => undefined))?.endOneOffSession();
    },
  };
  return deps;
}

/** How long a request goes unanswered before a spinner says what ctl is waiting for. */
const WAITING_NOTICE_MS = 1_000;

/** --timeout and --verbose, as the HTTP client takes them, and the spinner of a request left waiting. */
function netOptions(io: IO, g: GlobalOptions, pools: ConnectionPools | undefined): NetOptions {
  return {
    timeoutMs: g.timeoutMs,
    trace: g.verbose ? (line: string) => io.info(`> ${line}`) : undefined,
    pools,
    waiting: (controller, request) => io.spin(`waiting for ${controller}`, request, WAITING_NOTICE_MS),
  };
}

/**
 * Prompts on stderr (stdout carries only results), reading the IO's stdin. Ctrl-C rejects with inquirer's
 * ExitPromptError, which main() reports as an interruption (exit 130). Ctrl-D or the end of stdin closes inquirer's
 * line reader without settling its prompt: that is declined here (exit 3) rather than left to end the process as a
 * success.
 */
export function createInquirerPrompter(io: IO): Prompter {
  const context = { input: io.stdin, output: io.stderr };
  const answered = <T>(prompt: Promise<T>) =>
    failIfIdle(prompt, () => {
      io.stderr.write('\n'); // the prompt's line was left open
      return new DeclinedError('no answer: the input ended at the prompt');
    });
  return {
    async input(message, opts) {
      const { input } = await import('@inquirer/prompts');
      return answered(input({ message, default: opts?.default }, context));
    },
    async password(message) {
      const { password } = await import('@inquirer/prompts');
      return answered(password({ message }, context));
    },
    async confirm(message, opts) {
      const { confirm } = await import('@inquirer/prompts');
      return answered(confirm({ message, default: opts?.default }, context));
    },
  };
}
