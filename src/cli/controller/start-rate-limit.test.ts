import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { UsageError } from '../../console/errors.js';
import { buildStart, type StartOptions } from './start.js';

describe('ctl controller start --client-rate-limit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function parse(args: string[]): Promise<StartOptions> {
    let seen: StartOptions | undefined;
    const command = buildStart(
      testDeps({ configDir: dir }),
      async (opts) => void (seen = opts),
    ) as unknown as CommandUnknownOpts;
    await parseArgv(command, ['start', ...args]);
    return seen!;
  }

  it('takes BURST/PER_SECOND, and leaves the default to the controller without it', async () => {
    assert.deepEqual((await parse(['--client-rate-limit', '100/2.5'])).clientRateLimit, { burst: 100, perSecond: 2.5 });
    assert.equal((await parse([])).clientRateLimit, undefined);
  });

  it('refuses anything else as a usage error naming the form', async () => {
    for (const bad of ['100', '0/1', '10/0', 'ten/1', '10/-1']) {
      await assert.rejects(
        parse(['--client-rate-limit', bad]),
        (err: unknown) => err instanceof UsageError && /BURST\/PER_SECOND/.test(err.message),
        bad,
      );
    }
  });
});
