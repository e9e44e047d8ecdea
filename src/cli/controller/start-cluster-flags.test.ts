import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildStart, type StartOptions } from './start.js';

describe('ctl controller start --pki-key-file, --experimental-shared-database', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-start-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function parse(args: string[]): Promise<StartOptions> {
    let seen: StartOptions | undefined;
    const deps = testDeps({ configDir: dir });
    const command = buildStart(deps, async (opts) => void (seen = opts)) as unknown as CommandUnknownOpts;
    await parseArgv(command, ['start', ...args]);
    return seen!;
  }

  it('passes the key file and the opt-in to the controller; neither is on by default', async () => {
    const given = await parse(['--pki-key-file', '/etc/ctl/pki.key', '--experimental-shared-database']);
    assert.equal(given.pkiKeyFile, '/etc/ctl/pki.key');
    assert.equal(given.experimentalSharedDatabase, true);
    const plain = await parse([]);
    assert.equal(plain.pkiKeyFile, undefined);
    assert.equal(plain.experimentalSharedDatabase, false);
  });
});
