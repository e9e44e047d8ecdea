import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXIT_CODE_HELP } from '../console/errors.js';
import { testDeps } from './testing/test-deps.js';
import { HELP_TOPICS, findCommand, topicText, topicsSummary } from './help-topics.js';
import { buildProgram } from './main.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** The source files under `dir` that ship (tests and test helpers left out). */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !/(^|\/)testing\//.test(file))
    .map((file) => join(dir, file));
}

describe('help topics', () => {
  it('has exit-codes, environment and filters', () => {
    assert.deepEqual(
      HELP_TOPICS.map((t) => t.name),
      ['exit-codes', 'environment', 'filters'],
    );
    assert.ok(topicsSummary().includes('environment  environment variables ctl reads'));
  });

  it('lists every exit code from the one table in errors.ts', () => {
    const text = topicText('exit-codes')!.replace(/\n {7}/g, ' ');
    for (const [code, meaning] of EXIT_CODE_HELP)
      assert.ok(text.includes(`${String(code).padStart(3)}  ${meaning}`), meaning);
  });

  it('fits every topic in 80 columns', () => {
    for (const topic of HELP_TOPICS) {
      for (const line of topic.lines()) assert.ok(line.length <= 80, `${topic.name}: ${line.length} columns: ${line}`);
    }
  });

  it('names every environment variable ctl reads', () => {
    const text = topicText('environment')!;
    for (const name of [
      'CTL_PROFILE',
      'CTL_OUTPUT',
      'CTL_CONTROLLER',
      'CTL_TOKEN',
      'CTL_USERNAME',
      'CTL_PASSWORD',
      'CTL_CONFIG_DIR',
      'NO_COLOR',
      'CI',
    ]) {
      assert.ok(text.includes(name), name);
    }
    // Every CTL_ variable the sources mention, so that a new one cannot be left out of the topic.
    const read = new Set(sources(SRC).flatMap((file) => readFileSync(file, 'utf8').match(/\bCTL_[A-Z_]+\b/g) ?? []));
    assert.ok(read.has('CTL_STORE_URL') && read.has('CTL_SQLITE_BINDING'), 'the scan finds the variables');
    for (const name of read) assert.match(text, new RegExp(`^ {2}${name}( |$)`, 'm'), `${name} is listed`);
  });

  it('finds commands by names and aliases for ctl help', async () => {
    const program = await buildProgram(testDeps());
    assert.equal(findCommand(program, ['identities', 'ls'])?.name(), 'list');
    assert.equal(findCommand(program, ['identity', 'nope']), undefined);
  });
});
