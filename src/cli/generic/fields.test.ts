import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import { resource } from '../../resources/index.js';
import { identity } from '../../resources/identity.js';
import { addFieldFlags, collectFields, flagName, writableFields } from './fields.js';
import type { WriteVerb } from './fields.js';
import { parse } from '../testing/parse.js';

async function parsed(verb: WriteVerb, argv: string[], exclude: string[] = []) {
  const command = new Command('x');
  const flags = addFieldFlags(command, identity, verb, exclude);
  await parse(command, argv);
  return { input: collectFields(command, flags), flags, command };
}

describe('field flags', () => {
  it('names flags after fields: booleans without is, references without Id, role attributes as --attributes', () => {
    assert.equal(flagName(identity, 'isAdmin', { kind: 'boolean' }), 'admin');
    assert.equal(flagName(identity, 'authPolicyId', { kind: 'ref', resource: 'auth-policy' }), 'auth-policy');
    assert.equal(flagName(identity, 'roleAttributes', { kind: 'attributes' }), 'attributes');
    assert.equal(flagName(identity, 'defaultHostingCost', { kind: 'integer' }), 'default-hosting-cost');
  });

  it('derives only fields the verb accepts, never read-only ones, and adds tags', () => {
    const create = writableFields(identity, 'create').map(([f]) => f);
    assert.ok(create.includes('enrollment') && create.includes('tags'));
    // accepted by the API but stored as Default whatever is sent: no flag that would pretend otherwise
    assert.ok(!create.includes('type') && !writableFields(identity, 'patch').some(([f]) => f === 'type'));
    assert.ok(!create.includes('isDefaultAdmin') && !create.includes('disabledAt'));
    assert.ok(!create.includes('serviceHostingCosts'), 'maps have no flag yet');
    const patch = writableFields(identity, 'patch').map(([f]) => f);
    assert.ok(!patch.includes('enrollment'));
  });

  it('takes a field named in the negative (noTraversal) as --no-traversal, cleared by --traversal', async () => {
    const router = resource('edge-router');
    assert.equal(flagName(router, 'noTraversal', { kind: 'boolean' }), 'traversal');
    const read = async (argv: string[]) => {
      const command = new Command('x');
      const flags = addFieldFlags(command, router, 'patch');
      await parse(command, argv);
      return collectFields(command, flags).body;
    };
    assert.deepEqual(await read(['--no-traversal']), { noTraversal: true });
    assert.deepEqual(await read(['--traversal']), { noTraversal: false });
    assert.deepEqual(await read([]), {}, 'not given: not sent');
  });

  it('sends only the flags given: nothing given is an empty body', async () => {
    const { input } = await parsed('patch', []);
    assert.deepEqual(input, { body: {}, refs: [] });
  });

  it('reads booleans, enums, integers, attributes, tags, JSON and references', async () => {
    const { input } = await parsed('patch', [
      '--no-admin',
      '--default-hosting-precedence',
      'required',
      '--default-hosting-cost',
      '7',
      '-a',
      'sales,emea',
      '-a',
      'ops',
      '--tag',
      'env=prod',
      '--tags',
      'team=',
      '--app-data',
      '{"k":1}',
      '--auth-policy',
      'strict',
      '--name',
      'laptop-8',
    ]);
    assert.deepEqual(input.body, {
      isAdmin: false,
      defaultHostingPrecedence: 'required',
      defaultHostingCost: 7,
      roleAttributes: ['sales', 'emea', 'ops'],
      appData: { k: 1 },
      name: 'laptop-8',
    });
    assert.deepEqual(input.refs, [{ field: 'authPolicyId', resource: 'auth-policy', value: 'strict' }]);
    // on update, tags are an edit of the current ones (the hidden --tags is the same flag)
    assert.deepEqual(input.tagEdit, { set: { env: 'prod', team: '' }, remove: [] });
  });

  it('clears with empty values: [] for attributes (never null), null for nullable fields, {} for tags', async () => {
    const { input } = await parsed('patch', ['-a', '', '--external-id', '', '--tag', '', '--app-data', '']);
    assert.deepEqual(input.body, { roleAttributes: [], externalId: null, tags: {}, appData: null });
  });

  const rejects: Array<[string, string[], RegExp]> = [
    ['an unknown enum value', ['--default-hosting-precedence', 'top'], /Allowed choices are default, required, failed/],
    ['an integer out of bounds', ['--default-hosting-cost', '70000'], /between 0 and 65535/],
    ['a non-integer', ['--default-hosting-cost', '1.5'], /not an integer/],
    ['a tag without =', ['--tag', 'env'], /key=value/],
    ['a typed tag that is not JSON', ['--tag', 'n:=abc'], /after := comes JSON/],
    ['a typed tag that is an object', ['--tag', 'n:={}'], /a string, a number/],
    ['bad JSON', ['--app-data', '{'], /not valid JSON/],
    ['JSON that is not an object', ['--app-data', '[1]'], /JSON object/],
  ];
  for (const [what, argv, message] of rejects) {
    it(`rejects ${what} as a usage error`, async () => {
      await assert.rejects(
        parsed('patch', argv),
        (err: Error & { exitCode?: number }) => message.test(err.message) && err.exitCode === 1,
      );
    });
  }
});
