import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { NotFoundError } from '../console/errors.js';
import { createDeps, createInquirerPrompter } from './deps-factory.js';
import { createTestIO } from '../client/testing/test-io.js';

describe('createDeps', () => {
  it('reads the global --profile when the session manager is first needed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ctl-deps-'));
    try {
      const globals = { profile: undefined as string | undefined };
      const deps = createDeps({ io: createTestIO(), env: { CTL_CONFIG_DIR: dir }, globals: () => globals });
      globals.profile = 'staging'; // parsed after the tree was built, before the action ran
      const sessions = await deps.sessions();
      assert.equal(await deps.sessions(), sessions, 'one session manager per run');
      assert.equal((await sessions.current()).profileName, 'staging');
      await assert.rejects(deps.api(), NotFoundError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createInquirerPrompter', () => {
  it('prompts on stderr and reads the answer from stdin', async () => {
    const io = createTestIO({ tty: true });
    const input = new PassThrough();
    const prompter = createInquirerPrompter({ ...io, stdin: input });
    const answer = prompter.input('Username:');
    input.write('alice\n');
    assert.equal(await answer, 'alice');
    assert.match(io.stderrText(), /Username:/);
    assert.equal(io.stdoutText(), '');
  });
});
