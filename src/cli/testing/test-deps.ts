// Test-only Deps, for every command test: string IO, a scripted prompter that records its questions, a fixed clock,
// and either the fake API the test gives (fake-api.ts) or the real session manager on a temporary configuration
// directory (login, profiles), so tests run `runX(opts, deps)` exactly as the CLI would, without a terminal.
import { createSessionManager } from '../../client/session-manager.js';
import { profileSelection } from '../../console/command-hint.js';
import type { SessionManager } from '../../client/session-manager.js';
import { fakePrompter } from '../../client/testing/fake-prompter.js';
import type { Answers } from '../../client/testing/fake-prompter.js';
import { createTestIO } from '../../client/testing/test-io.js';
import type { TestIO } from '../../client/testing/test-io.js';
import type { ApiClient } from '../../client/types.js';
import type { Deps, GlobalOptions } from '../deps.js';
import { fakeApi } from './fake-api.js';

export interface TestDepsOptions {
  /** What `deps.api()` answers; by default the session manager's client, or without one a fake stubbing nothing. */
  api?: ApiClient;
  /** The configuration directory of a real session manager; without it, only the current profile is faked. */
  configDir?: string;
  tty?: boolean;
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  globals?: GlobalOptions;
  /** Answers to the prompts, by kind and in order; a question beyond them fails the test. */
  answers?: Answers;
  now?: Date;
}

export interface TestDeps extends Deps {
  io: TestIO;
  /** The questions asked, in order. */
  prompts: string[];
}

export function testDeps(opts: TestDepsOptions = {}): TestDeps {
  const io = createTestIO({ tty: opts.tty, stdin: opts.stdin });
  const prompter = fakePrompter(opts.answers);
  const env = opts.env ?? {};
  const globals = opts.globals ?? {};
  const { configDir } = opts;
  let sessions: SessionManager | undefined;
  const deps: TestDeps = {
    io,
    env,
    globals: () => globals,
    sessions: async () => {
      if (configDir === undefined) return noProfilesStored(globals.profile, env.CTL_PROFILE);
      const managed = { env, io, configDir, profileFlag: globals.profile, prompter: async () => prompter };
      return (sessions ??= createSessionManager(managed));
    },
    api: async () => opts.api ?? (configDir === undefined ? fakeApi({}) : (await deps.sessions()).client()),
    prompter: async () => prompter,
    net: () => ({}),
    clock: () => opts.now ?? new Date('2025-11-21T12:00:00Z'),
    prompts: prompter.asked,
  };
  return deps;
}

/**
 * Where no profile is stored, the one selected (--profile, CTL_PROFILE, else `default`): what a message suggests
 * names it unless it is `default`, as the session manager does. Nothing else is faked.
 */
function noProfilesStored(flag: string | undefined, fromEnv: string | undefined): SessionManager {
  const profileName = flag ?? fromEnv ?? 'default';
  const profileSource = flag ? 'flag' : fromEnv ? 'env' : 'default';
  const selection = profileSelection(profileName, undefined);
  return { current: async () => ({ profileName, profileSource, selection }) } as unknown as SessionManager;
}
