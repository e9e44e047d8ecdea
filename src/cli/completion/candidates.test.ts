import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testDeps } from '../testing/test-deps.js';
import { buildProgram } from '../main.js';
import { candidates } from './candidates.js';
import type { CompletionSource } from './hints.js';
import { IDENTITY_VERBS as verbs } from '../testing/identity-verbs.js';

const program = await buildProgram(testDeps());
const asked: CompletionSource[] = [];
const dynamic = async (source: CompletionSource) => {
  asked.push(source);
  if (source.kind === 'profile') return ['default', 'lab'];
  if (source.kind === 'attribute') return ['emea', 'sales'];
  if (source.kind === 'role') return ['#all', '#emea', '#sales', '@laptop-7'];
  if (source.kind !== 'resource') return [];
  return source.resource === 'identity' ? ['laptop-7', 'laptop-8', 'server'] : ['default-policy', 'strict'];
};
const complete = async (...words: string[]) => (await candidates(program, words, dynamic)).map((c) => c.value);

describe('completion candidates', () => {
  it('completes attributes and roles after their flags, and topics after help (not file names)', async () => {
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
    assert.deepEqual(await complete('identity', ''), verbs);
    assert.deepEqual(await complete('identities', ''), verbs);
  });

  it('completes enum values of options: formats, semantics, hosting precedences', async () => {
    assert.deepEqual(await complete('-o', ''), ['table', 'wide', 'json', 'yaml']);
    assert.deepEqual(await complete('identity', 'list', '--output', 'j'), ['json']);
    assert.deepEqual(await complete('identity', 'delete', '-yo', ''), ['table', 'wide', 'json', 'yaml'], 'joined');
    assert.deepEqual(await complete('identity', 'list', '--role-semantic', ''), ['AllOf', 'AnyOf']);
    assert.deepEqual(await complete('identity', 'create', 'x', '--default-hosting-precedence', 'r'), ['required']);
  });

  it('completes values from a fixed list that choices cannot hold: OS names, methods, policy kinds', async () => {
    const os = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'];
    assert.deepEqual(await complete('posture-check', 'create', 'os', 'n', '--os', ''), os);
    assert.deepEqual(await complete('posture-check', 'update', 'n', '--os=Win'), [
      '--os=Windows',
      '--os=WindowsServer',
    ]);
    assert.deepEqual(await complete('service', 'create', 'web', '--terminator-strategy', 's'), [
      'smartrouting',
      'sticky',
    ]);
    assert.deepEqual(await complete('auth-policy', 'create', 'p', '--primary', 'password,'), [
      'password,cert',
      'password,ext-jwt',
    ]);
    assert.deepEqual(await complete('policy', 'list', ''), ['dial', 'bind', 'router', 'service-router']);
    assert.deepEqual(await complete('api', 'P'), ['POST', 'PUT', 'PATCH']);
    assert.deepEqual(await complete('api', 'GET', ''), [], 'the path is free text');
  });

  it('describes commands and flags, not values', async () => {
    const described = async (...words: string[]) =>
      Object.fromEntries((await candidates(program, words, dynamic)).map((c) => [c.value, c.description]));
    const verbs = await described('identity', '');
    assert.match(verbs.list ?? '', /^List identities/);
    const create = 'Create an identity (type Default and a one-time-token enrollment unless told otherwise)';
    assert.equal(verbs.create, create, 'the first clause');
    const flags = await described('identity', 'create', 'x', '--a');
    assert.equal(flags['--admin'], 'grants full access to the management API');
    assert.equal(flags['--attributes']?.includes('\n'), false, 'on one line');
    assert.deepEqual(await described('-o', ''), {
      table: undefined,
      wide: undefined,
      json: undefined,
      yaml: undefined,
    });
  });

  it('does not offer again a flag that cannot repeat, nor what a repeatable flag or a variadic name has', async () => {
    assert.deepEqual(await complete('identity', 'create', 'x', '--admin', '--ad'), [], '--admin is a switch');
    assert.deepEqual(
      await complete('identity', 'create', 'x', '--no-admin', '--'),
      (await complete('identity', 'create', 'x', '--')).filter((f) => f !== '--admin' && f !== '--no-admin'),
      'nor its negation',
    );
    assert.deepEqual(await complete('-o', 'json', 'identity', 'list', '--o'), ['--offset'], 'a global one either');
    assert.deepEqual(await complete('-ojson', 'identity', 'list', '--o'), ['--offset'], 'given joined to its value');
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type=Dial', '--ty'), []);
    assert.deepEqual(await complete('identity', 'create', 'x', '--tag', 'a=1', '--ta'), ['--tag'], '--tag repeats');
    assert.deepEqual(await complete('identity', 'list', '--limit', '5', '--l'), [], 'an integer keeps the last');
    assert.deepEqual(await complete('--timeout', '5s', '--t'), [], 'so does a duration');
    assert.deepEqual(await complete('auth-policy', 'create', 'x', '--lockout', '1h', '--lock'), [], 'in minutes too');
    assert.deepEqual(await complete('enrollment', 'create', 'x', '--expires-in', '1d', '--expires-i'), []);
    assert.deepEqual(await complete('config', 'create', 'x', '--data', '{}', '--da'), [], 'a JSON object');
    assert.deepEqual(await complete('ca', 'create', 'x', '--external-id-claim', '{}', '--external-id-c'), []);
    assert.deepEqual(await complete('identity', 'disable', 'x', '--for', '1h', '--f'), [], 'a duration read in place');
    assert.deepEqual(await complete('signer', 'create', 'x', '--cert-pem', '@c.pem', '--cert-p'), [], 'a PEM');
    assert.deepEqual(await complete('controller', 'start', '--client-rate-limit', '5/1', '--client-r'), []);
    const primary = ['auth-policy', 'create', 'x', '--primary', 'password', '--prim'];
    assert.deepEqual(await complete(...primary), [], 'a list given in one word');
    assert.deepEqual(await complete('identity', 'update', 'x', '--app-data', '{}', '--app'), [], 'and a JSON object');
    assert.deepEqual(await complete('identity', 'delete', 'laptop-7', 'lap'), ['laptop-8']);
    const os = ['posture-check', 'create', 'os', 'n', '--os', 'Windows:10.0', '--os'];
    assert.deepEqual(await complete(...os, 'Win'), ['WindowsServer'], 'an OS given with its versions');
    assert.deepEqual(await complete('identity', 'delete', 'laptop-7', 'server', ''), ['laptop-8']);
    assert.deepEqual(await complete('identity', 'list', '--role-filter', '#emea', '--role-filter', '#'), [
      '#all',
      '#sales',
    ]);
    assert.deepEqual(
      await complete('service-policy', 'create', 'p', '--identities', '#sales,#all', '--identities', '#'),
      ['#emea'],
    );
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

  it('completes --flag=value as one word (zsh, fish) and as bash splits it at =', async () => {
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type='), ['--type=Dial', '--type=Bind']);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--semantic=Al'), ['--semantic=AllOf']);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type', '='), ['Dial', 'Bind']);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type', '=', 'B'), ['Bind']);
    assert.deepEqual(await complete('-o', 'json', '--output', '=', 'y'), ['yaml']);
    // a completed --flag=value earlier on the line is skipped like any option and its value
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type', '=', 'Dial', '--sem'), ['--semantic']);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--type=Dial', '--semantic', 'A'), [
      'AllOf',
      'AnyOf',
    ]);
  });

  it('completes roles over the resource they select, entity names for reference lists, after commas too', async () => {
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--identities', '#s'), ['#sales']);
    assert.deepEqual(asked.at(-1), { kind: 'role', resource: 'identity', list: true });
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--identities', '#sales,@'), ['#sales,@laptop-7']);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--identities=#sales,#'), [
      '--identities=#sales,#all',
      '--identities=#sales,#emea',
    ]);
    assert.deepEqual(await complete('service-policy', 'create', 'p', '--posture-checks', ''), [
      '#all',
      '#emea',
      '#sales',
      '@laptop-7',
    ]);
    assert.deepEqual(asked.at(-1), { kind: 'role', resource: 'posture-check', list: true });
    assert.deepEqual(await complete('policy', 'create', 'dial', 'p', '--identities', '#sales,@'), ['#sales,@laptop-7']);
    assert.deepEqual(await complete('policy', 'update', 'p', '--services', '#all,#'), ['#all,#emea', '#all,#sales']);
    assert.deepEqual(asked.at(-1), { kind: 'role', resource: 'service', list: true });
    await complete('service', 'create', 'web', '--config', 'a,');
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'config', list: true });
  });

  it('completes policy names of every kind, what policy explain takes, ids of entities without names', async () => {
    const resource = ['service-policy', 'edge-router-policy', 'service-edge-router-policy'];
    const policies = { kind: 'resource', resource };
    for (const verb of ['show', 'update', 'delete']) {
      assert.deepEqual(await complete('policy', verb, 's'), ['strict']);
      assert.deepEqual(asked.at(-1), policies);
    }
    assert.deepEqual(await complete('policy', 'delete', 'strict', 'd'), ['default-policy']);
    assert.deepEqual(await complete('policy', 'explain', 'lap'), ['laptop-7', 'laptop-8']);
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'identity' });
    await complete('policy', 'explain', 'laptop-7', '');
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'service' });
    await complete('enrollment', 'refresh', '');
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'enrollment' });
    await complete('authenticator', 'revert', '');
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'authenticator' });
    await complete('authenticator', 'request-extend', '');
    assert.deepEqual(asked.at(-1), { kind: 'resource', resource: 'authenticator' });
  });

  it('completes the commands of ctl as after the identity file (the file itself is a file name)', async () => {
    assert.deepEqual(await complete('as', ''), []);
    const commands = ['services', 'session', 'posture', 'routers', 'updates'];
    assert.deepEqual(await complete('as', 'laptop-7.json', ''), commands);
    assert.deepEqual(await complete('as', 'laptop-7.json', 'se'), ['services', 'session']);
    assert.deepEqual(await complete('as', 'laptop-7.json', 'session', 'c'), ['create']);
    assert.deepEqual(await complete('as', 'laptop-7.json', 'services', '--c'), ['--config-types']);
    assert.deepEqual(await complete('as', 'laptop-7.json', 'posture', 'submit', '--w'), ['--woken']);
    assert.deepEqual(await complete('as', 'laptop-7.json', '-o', 'y'), ['yaml']);
  });

  it('skips option values and the words after -- when finding the command', async () => {
    assert.deepEqual(await complete('-o', 'json', 'identity', 'sh'), ['show']);
    assert.deepEqual(await complete('identity', 'list', '--limit', '5', '--o'), ['--offset', '--output']);
  });

  it('completes past an unknown option, the word after it its value unless it names a command', async () => {
    assert.deepEqual(await complete('--bogus', 'identity', 'sh'), ['show']);
    assert.deepEqual(await complete('--bogus', 'x', 'identity', 'sh'), ['show'], 'x is the value of --bogus');
    assert.deepEqual(await complete('--bogus=x', 'identity', 'sh'), ['show']);
    assert.deepEqual(await complete('-z', 'x', '-o', 'json', 'identity', 'sh'), ['show']);
    assert.deepEqual(await complete('--bogus', 'x', 'ident'), ['identity', 'identity-type']);
    assert.deepEqual(await complete('identity', '--bogus', 'x', 'sh'), ['show'], 'and before a verb');
    assert.deepEqual(
      await complete('-ojson', 'x', 'identity', 'sh'),
      [],
      '-ojson is -o with its value: x is a command',
    );
    assert.deepEqual(await complete('--bogus', 'x', 'y', 'identity', 'sh'), [], 'one word at most is its value');
  });
});
