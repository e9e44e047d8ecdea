// Test-only Deps: the real session manager on a temporary config directory, a scripted prompter and string IO,
// so command tests run `runX(opts, deps)` exactly as the CLI would, without a terminal.
import type { Deps, GlobalOptions } from '../deps.js';
import { createSessionManager } from '../../client/session-manager.js';
import type { SessionManager } from '../../client/session-manager.js';
import { fakePrompter } from '../../client/testing/fake-prompter.js';
import type { Answers, FakePrompter } from '../../client/testing/fake-prompter.js';
import { createTestIO } from '../../client/testing/test-io.js';
import type { TestIO } from '../../client/testing/test-io.js';

export interface TestDeps {
  deps: Deps;
  io: TestIO;
  prompter: FakePrompter;
}

export function testDeps(opts: {
  configDir: string;
  tty?: boolean;
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  globals?: GlobalOptions;
  answers?: Answers;
}): TestDeps {
  const io = createTestIO({ tty: opts.tty, stdin: opts.stdin });
  const prompter = fakePrompter(opts.answers);
  const env = opts.env ?? {};
  const globals = opts.globals ?? {};
  let sessions: SessionManager | undefined;
  const deps: Deps = {
    io,
    env,
    globals: () => globals,
    sessions: async () =>
      (sessions ??= createSessionManager({ env, io, configDir: opts.configDir, profileFlag: globals.profile, prompter: async () => prompter })),
    api: async () => (await deps.sessions()).client(),
    prompter: async () => prompter,
    net: () => ({}),
    clock: () => new Date('2030-06-01T00:00:00.000Z'),
  };
  return { deps, io, prompter };
}
