// Names wherever an id goes, for every noun at once: reference lists and policy roles as flags, resolved to ids
// before anything is written, with errors that name the flag the value came from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import { EXIT } from '../../console/errors.js';
import { notFound } from '../../protocol/errors.js';
import { identity } from '../../resources/identity.js';
import { service } from '../../resources/service.js';
import { servicePolicy } from '../../resources/service-policy.js';
import type { ResourceDef } from '../../resources/types.js';
import { buildCreate } from './create.js';
import { addFieldFlags, collectFields, roleList } from './fields.js';
import type { WriteVerb } from './fields.js';
import { resolveInput } from './resolve.js';
import { fakeApi, lookups } from '../testing/fake-api.js';
import { parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

async function parsed(def: ResourceDef, verb: WriteVerb, argv: string[], names: Record<string, string> = {}) {
  const command = new Command('x');
  const flags = addFieldFlags(command, def, verb, ['name'], names);
  await parse(command, argv);
  return collectFields(command, flags);
}

const identities = [
  { id: 'i1', name: 'laptop-7' },
  { id: 'i2', name: 'server' },
];
const services = [{ id: 's1', name: 'web' }];
const configRows = [
  { id: 'c1', name: 'web-intercept' },
  { id: 'c2', name: 'web-host' },
];

describe('reference list and role flags', () => {
  it('name roles by what they select, take them comma-separated or repeated; the field name is a synonym', async () => {
    const input = await parsed(servicePolicy, 'create', [
      '--identities',
      '#sales,@laptop-7',
      '--identities',
      '#emea',
      '--service-roles',
      '@web',
      '--posture-checks',
      '',
    ]);
    assert.deepEqual(input.roles, [
      { field: 'identityRoles', resource: 'identity', values: ['#sales', '@laptop-7', '#emea'], flag: '--identities' },
      { field: 'serviceRoles', resource: 'service', values: ['@web'], flag: '--services' },
      { field: 'postureCheckRoles', resource: 'posture-check', values: [], flag: '--posture-checks' },
    ]);
  });

  it('take reference lists in the singular, repeated or comma-separated; "" clears them', async () => {
    assert.deepEqual(
      (await parsed(service, 'create', ['--config', 'web-intercept', '--config', 'web-host,c1'])).refLists,
      [{ field: 'configs', resource: 'config', values: ['web-intercept', 'web-host', 'c1'], flag: '--config' }],
    );
    assert.deepEqual((await parsed(service, 'patch', ['--configs', ''])).refLists?.[0].values, []);
  });

  it("take a reference's field name as a hidden synonym too (--auth-policy-id beside --auth-policy)", async () => {
    for (const flag of ['--auth-policy', '--auth-policy-id']) {
      assert.deepEqual((await parsed(identity, 'create', [flag, 'corp'])).refs, [
        { field: 'authPolicyId', resource: 'auth-policy', value: 'corp' },
      ]);
    }
  });

  it('can be renamed by a noun, the derived name staying a synonym', async () => {
    const input = await parsed(servicePolicy, 'create', ['--who', '#a', '--identities', '#b'], {
      identityRoles: 'who',
    });
    assert.deepEqual(input.roles?.[0], {
      field: 'identityRoles',
      resource: 'identity',
      values: ['#a', '#b'],
      flag: '--who',
    });
  });

  const malformed: Array<[string, string[], RegExp]> = [
    ['a role without # or @', ['--identities', 'sales'], /"sales" is no role/],
    ['a bare #', ['--identities', '#'], /"#" is no role/],
    ['#all beside other roles', ['--identities', '#all,#sales'], /#all selects everything and stands alone/],
    ['#all repeated beside others', ['--services', '@web', '--services', '#all'], /stands alone/],
  ];
  for (const [what, argv, message] of malformed) {
    it(`refuses ${what}, naming the flag, before any request`, async () => {
      await assert.rejects(
        parsed(servicePolicy, 'create', argv),
        (err: Error) => message.test(err.message) && err.message.includes(argv[argv.length - 2]),
      );
    });
  }

  it('refuses #all given under a flag and its synonym together, naming the flag (exit 2)', async () => {
    await assert.rejects(
      parsed(servicePolicy, 'create', ['--identities', '#all', '--identity-roles', '#x']),
      (err: Error & { exitCode: number }) => {
        assert.equal(err.exitCode, EXIT.usage);
        assert.match(err.message, /^--identities: #all selects everything/);
        return true;
      },
    );
  });

  it('accepts #all alone', () => {
    assert.deepEqual(roleList('#all', undefined), ['#all']);
  });
});

describe('resolving names to ids', () => {
  it('turns @name into @id, keeps #attributes, and resolves reference lists', async () => {
    const identityLookups = lookups('identities', identities, ['laptop-7', 'i2']);
    const api = fakeApi({ ...identityLookups, ...lookups('configs', configRows, ['web-intercept', 'c2']) });
    const input = await parsed(servicePolicy, 'create', ['--identities', '@laptop-7,#sales,@i2', '--services', '#all']);
    assert.deepEqual(await resolveInput(api, input, servicePolicy), {
      identityRoles: ['@i1', '#sales', '@i2'],
      serviceRoles: ['#all'],
    });
    const configs = await parsed(service, 'create', ['--config', 'web-intercept,c2']);
    assert.deepEqual(await resolveInput(api, configs, service), { configs: ['c1', 'c2'] });
  });

  it('names the flag when a name matches nothing (exit 5)', async () => {
    const input = await parsed(servicePolicy, 'create', ['--services', '@web,@ghost']);
    const api = fakeApi(lookups('services', services, ['web', 'ghost']));
    await assert.rejects(resolveInput(api, input, servicePolicy), (err: Error & { exitCode: number }) => {
      assert.equal(err.exitCode, EXIT.notFound);
      assert.equal(err.message, '--services: no service named or with id "ghost"');
      return true;
    });
  });

  it('names the flag of a single reference too', async () => {
    const { config } = await import('../../resources/config.js');
    const input = await parsed(config, 'create', ['--config-type', 'nope', '--data', '{}']);
    const api = fakeApi({ 'GET /config-types/nope': notFound('config-type', 'nope'), 'LIST /config-types': [] });
    await assert.rejects(
      resolveInput(api, input, config),
      /^Error: --config-type: no config type named or with id "nope"$|--config-type: no config type/,
    );
  });

  it('creates a policy with every @name sent as @id (one POST)', async () => {
    const routes = { ...lookups('identities', identities, ['laptop-7']), ...lookups('services', services, ['web']) };
    const api = fakeApi({ ...routes, 'POST /service-policies': { id: 'p1' } });
    const deps = testDeps({ api });
    await parse(buildCreate(deps, servicePolicy), [
      'dial-web',
      '--type',
      'Dial',
      '--semantic',
      'AnyOf',
      '--identities',
      '@laptop-7',
      '--services',
      '@web',
    ]);
    assert.deepEqual(api.calls.at(-1), {
      method: 'POST',
      path: '/service-policies',
      body: { name: 'dial-web', type: 'Dial', semantic: 'AnyOf', identityRoles: ['@i1'], serviceRoles: ['@s1'] },
    });
    assert.equal(deps.io.stdoutText(), 'p1\n');
  });
});
