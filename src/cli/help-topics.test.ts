import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT_CODE_HELP } from '../console/errors.js';
import { testDeps } from './generic/testing.js';
import { HELP_TOPICS, findCommand, topicText, topicsSummary } from './help-topics.js';
import { buildProgram } from './main.js';

describe('help topics', () => {
  it('has exit-codes, environment and filters', () => {
    assert.deepEqual(HELP_TOPICS.map((t) => t.name), ['exit-codes', 'environment', 'filters']);
    assert.ok(topicsSummary().includes('environment  environment variables ctl reads'));
  });

  it('lists every exit code from the one table in errors.ts', () => {
    const text = topicText('exit-codes')!;
    for (const [code, meaning] of EXIT_CODE_HELP) assert.ok(text.includes(`${String(code).padStart(3)}  ${meaning}`), meaning);
  });

  it('names every environment variable ctl reads', () => {
    const text = topicText('environment')!;
    for (const name of ['CTL_PROFILE', 'CTL_OUTPUT', 'CTL_CONTROLLER', 'CTL_TOKEN', 'CTL_USERNAME', 'CTL_PASSWORD', 'CTL_CONFIG_DIR', 'NO_COLOR', 'CI']) {
      assert.ok(text.includes(name), name);
    }
  });

  it('finds commands by names and aliases for ctl help', async () => {
    const program = await buildProgram(testDeps());
    assert.equal(findCommand(program, ['identities', 'ls'])?.name(), 'list');
    assert.equal(findCommand(program, ['identity', 'nope']), undefined);
  });
});
