import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testDeps } from '../generic/testing.js';
import { buildProgram } from '../main.js';
import { candidates } from './candidates.js';
import type { CompletionSource } from './hints.js';

const program = await buildProgram(testDeps());
const asked: CompletionSource[] = [];
const dynamic = async (source: CompletionSource) => {
  asked.push(source);
  if (source.kind === 'profile') return ['default', 'lab'];
  if (source.kind === 'attribute') return ['emea', 'sales'];
  if (source.kind === 'role') return ['#all', '#emea', '#sales', '@laptop-7'];
  if (source.kind === 'help') return [];
  return source.resource === 'identity' ? ['laptop-7', 'laptop-8', 'server'] : ['default-policy', 'strict'];
};
const complete = (...words: string[]) => candidates(program, words, dynamic);

describe('completion candidates', () => {
  it('completes attributes and roles after the attribute and role flags, and topics after help (not file names)', async () => {
    assert.deepEqual(await complete('identity', 'update', 'x', '--remove-attributes', ''), ['emea', 'sales']);
    assert.deepEqual(await complete('identity', 'update', 'x', '--add-attributes', 's'), ['sales']);
    assert.deepEqual(await complete('identity', 'create', 'x', '-a', ''), ['emea', 'sales']);
    assert.deepEqual(await complete('identity', 'list', '--role-filter', '#'), ['#all', '#emea', '#sales']);
    assert.deepEqual(await complete('help', 'fi'), ['filters']);
    assert.deepEqual(await complete('help', 'ident'), ['identity', 'identity-type']);
  });

  it('completes top-level commands by prefix, without aliases or hidden ones', async () => {
    assert.deepEqual(await complete('ident'), ['identity', 'identity-type']);
    assert.deepEqual(await complete('__'), []);
  });

  it('completes the verbs of a noun, also when reached through an alias', async () => {
    const verbs = ['list', 'show', 'create', 'update', 'delete', 'enable', 'disable', 'authenticators', 'enrollments', 'service-policies', 'edge-router-policies', 'services', 'edge-routers'];
    assert.deepEqual(await complete('identity', ''), verbs);
    assert.deepEqual(await complete('identities', ''), verbs);
  });

  it('completes enum values of options: formats, semantics, hosting precedences', async () => {
    assert.deepEqual(await complete('-o', ''), ['table', 'wide', 'json', 'yaml']);
    assert.deepEqual(await complete('identity', 'list', '--output', 'j'), ['json']);
    assert.deepEqual(await complete('identity', 'list', '--role-semantic', ''), ['AllOf', 'AnyOf']);
    assert.deepEqual(await complete('identity', 'create', 'x', '--default-hosting-precedence', 'r'), ['required']);
  });

  it('completes flags of the command and the global ones', async () => {
    assert.deepEqual(await complete('identity', 'list', '--o'), ['--offset', '--output']);
    assert.ok((await complete('identity', 'update', 'x', '--')).includes('--add-attributes'));
  });

  it('asks outside for profile and entity names', async () => {
    assert.deepEqual(await complete('--profile', ''), ['default', 'lab']);
    assert.deepEqual(await complete('identity', 'show', 'lap'), ['laptop-7', 'laptop-8']);
    assert.deepEqual(await complete('identity', 'delete', 'laptop-7', 'se'), ['server']);
    assert.deepEqual(await complete('identity', 'create', 'x', '--auth-policy', 's'), ['strict']);
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'auth-policy' });
  });

  it('offers nothing (file names) where free text goes', async () => {
    assert.deepEqual(await complete('identity', 'list', ''), []);
    assert.deepEqual(await complete('identity', 'authenticators', 'laptop-7', ''), []);
    assert.deepEqual(await complete('identity', 'create', 'x', '--jwt-output', ''), []);
  });

  it('skips option values and the words after -- when finding the command', async () => {
    assert.deepEqual(await complete('-o', 'json', 'identity', 'sh'), ['show']);
    assert.deepEqual(await complete('identity', 'list', '--limit', '5', '--l'), ['--limit']);
  });
});
