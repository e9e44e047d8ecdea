import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { UsageError } from '../../console/errors.js';
import { buildStart, runStart, type StartOptions } from './start.js';

describe('ctl controller start --admin-password-file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('that cannot be read is a usage error saying why in words, before anything starts', async () => {
    const missing = path.join(dir, 'missing');
    let opts: StartOptions | undefined;
    const deps = testDeps({ configDir: dir });
    const command = buildStart(deps, async (o) => void (opts = o)) as unknown as CommandUnknownOpts;
    await parseArgv(command, ['start', '--data-dir', path.join(dir, 'data'), '--admin-password-file', missing]);
    await assert.rejects(
      runStart(opts!, deps, new Promise<string>(() => {})),
      (err: unknown) =>
        err instanceof UsageError && err.message === `--admin-password-file ${missing}: no such file or directory`,
    );
  });
});
