import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command, Option } from '@commander-js/extra-typings';
import { createTestIO } from '../../client/testing/test-io.js';
import { UsageError } from '../../console/errors.js';
import { jsonObject } from './fields.js';
import { readStdinFlags } from './stdin-flags.js';

/** A command with two JSON flags, parsed from `argv`, its `-` values then read from `stdin`. */
async function parsed(argv: string[], stdin: string): Promise<Record<string, unknown>> {
  const command = new Command('x')
    .exitOverride()
    .addOption(new Option('--data <json>').argParser(jsonObject))
    .addOption(new Option('--app-data <json>').argParser(jsonObject));
  command.parse(argv, { from: 'user' });
  await readStdinFlags(command, createTestIO({ stdin }));
  return command.opts();
}

describe('JSON flags read from stdin', () => {
  it('reads stdin through the IO when the command runs', async () => {
    assert.deepEqual(await parsed(['--data', '-', '--app-data', '{"a":1}'], '{"port": 443}\n'), {
      data: { port: 443 },
      appData: { a: 1 },
    });
  });

  it('says which flag got what it could not use', async () => {
    const usage = (message: string) => (err: unknown) => err instanceof UsageError && err.message === message;
    await assert.rejects(
      parsed(['--data', '-'], 'not json'),
      usage("option '--data <json>' argument '-' is invalid. not valid JSON in stdin."),
    );
    await assert.rejects(
      parsed(['--data', '-'], '[1]'),
      usage("option '--data <json>' argument '-' is invalid. expected a JSON object."),
    );
  });

  it('refuses two flags that both want stdin', async () => {
    await assert.rejects(
      parsed(['--data', '-', '--app-data', '-'], '{}'),
      /only one flag can read stdin: --data <json> and --app-data <json>/,
    );
  });
});
