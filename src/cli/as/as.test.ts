// `ctl as` without a controller: what is refused before anything is read or sent. The whole story against a real
// controller is test/e2e/as-cli.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { testDeps } from '../testing/test-deps.js';
import { buildAs, runAs } from './index.js';

describe('ctl as (before any request)', () => {
  it('lists its commands in its help within 80 columns, each line indented under the heading', () => {
    const command = buildAs(testDeps());
    let help = '';
    command.configureOutput({ writeOut: (s) => void (help += s), getOutHelpWidth: () => 80 });
    command.outputHelp();
    const [, listed = ''] = help.split('Commands, after the identity file:\n');
    const lines = listed.split('\n\n')[0]!.split('\n');
    assert.ok(lines.length >= 6, help);
    for (const line of lines) assert.match(line, /^ {2}\S.{0,77}$|^ {4,}\S.{0,75}$/, `"${line}"`);
  });

  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-as-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const deps = () => testDeps({ configDir: dir });

  it('refuses an unknown command, a flag a command lacks, and --dial with --bind, naming the commands', async () => {
    const file = path.join(dir, 'never-read.json');
    await assert.rejects(
      runAs(file, ['sessions'], deps()),
      (err: unknown) =>
        err instanceof UsageError &&
        /unknown command 'sessions'/.test(err.message) &&
        err.details.some((d) => d.startsWith('services')),
    );
    await assert.rejects(
      runAs(file, ['routers', '--bogus'], deps()),
      (err: unknown) => err instanceof UsageError && /unknown option '--bogus'/.test(err.message),
    );
    await assert.rejects(
      runAs(file, ['session', 'create', 'web', '--dial', '--bind'], deps()),
      (err: unknown) => err instanceof UsageError && /cannot be combined/.test(err.message),
    );
    await assert.rejects(
      runAs(file, ['session', 'create'], deps()),
      (err: unknown) => err instanceof UsageError && /missing required argument 'service'/.test(err.message),
    );
  });

  it('refuses a file that is not an identity file, and posture submit with nothing to report', async () => {
    await assert.rejects(
      runAs(path.join(dir, 'missing.json'), ['services'], deps()),
      (err: unknown) => err instanceof UsageError && /cannot read the identity file/.test(err.message),
    );
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ztAPI: 'https://ctrl.example.com:1280/edge/client/v1' }));
    await assert.rejects(
      runAs(bad, ['routers'], deps()),
      (err: unknown) => err instanceof UsageError && /is not an identity file/.test(err.message),
    );
    await assert.rejects(
      runAs(bad, ['posture', 'submit'], deps()),
      (err: unknown) => err instanceof UsageError && /nothing to report/.test(err.message),
    );
    await assert.rejects(
      runAs(bad, ['posture', 'submit', '--os', 'Windows'], deps()),
      (err: unknown) => err instanceof UsageError && /TYPE:VERSION/.test(err.message),
    );
  });
});
