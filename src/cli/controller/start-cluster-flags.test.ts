import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { parseArgv } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { UsageError } from '../../console/errors.js';
import { buildStart, runStart, type StartOptions } from './start.js';

describe('ctl controller start --pki-key-file, --shared-database, --advertise', () => {
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
    const given = await parse(['--pki-key-file', '/etc/ctl/pki.key', '--shared-database']);
    assert.equal(given.pkiKeyFile, '/etc/ctl/pki.key');
    assert.equal(given.sharedDatabase, true);
    const oldName = await parse(['--pki-key-file', '/etc/ctl/pki.key', '--experimental-shared-database']);
    assert.equal(oldName.sharedDatabase, true, 'the name it had while experimental is still taken');
    const plain = await parse([]);
    assert.equal(plain.pkiKeyFile, undefined);
    assert.equal(plain.sharedDatabase, false);
  });

  it('--advertise takes HOST[:PORT] addresses; another value is a usage error, before anything is made', async () => {
    const given = await parse(['--advertise', 'ctrl.example.com:443, alt.example.com']);
    assert.deepEqual(given.advertise, ['ctrl.example.com:443', 'alt.example.com']);
    const dataDir = path.join(dir, 'refused');
    const opts = { ...(await parse(['--data-dir', dataDir, '--admin-password', 'unused-pw'])), advertise: ['a:b:c'] };
    const start = runStart(opts, testDeps({ configDir: dir }), new Promise(() => {}));
    await assert.rejects(start, (err) => err instanceof UsageError && /^--advertise a:b:c: /.test(err.message));
    assert.equal(existsSync(dataDir), false);
  });
});
