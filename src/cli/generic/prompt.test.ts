import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT } from '../../console/errors.js';
import { notFound } from '../../protocol/errors.js';
import { config } from '../../resources/config.js';
import { service } from '../../resources/service.js';
import { servicePolicy } from '../../resources/service-policy.js';
import { buildCreate } from './create.js';
import { fakeApi } from '../testing/fake-api.js';
import { parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';

describe('missing required values', () => {
  it('without a terminal: one usage error naming every missing flag (exit 2), nothing sent', async () => {
    const api = fakeApi({});
    await assert.rejects(
      parse(buildCreate(testDeps({ api, tty: false }), servicePolicy), ['--identities', '#all']),
      (err: Error & { exitCode: number; details: string[] }) => {
        assert.equal(err.exitCode, EXIT.usage);
        assert.equal(err.message, 'missing NAME, --type VALUE, --semantic VALUE');
        assert.match(err.details[0]!, /^pass them on the command line/);
        return true;
      },
    );
    assert.equal(api.calls.length, 0);
  });

  it('without a terminal, one missing value is "it" in the hint', async () => {
    await assert.rejects(
      parse(buildCreate(testDeps({ tty: false }), service), []),
      (err: Error & { details: string[] }) => {
        assert.equal(err.message, 'missing NAME');
        assert.match(err.details[0]!, /^pass it on the command line \(prompting needs a terminal/);
        return true;
      },
    );
  });

  it('at a terminal: asks for each, in the flag’s own terms, and sends the answers', async () => {
    const api = fakeApi({ 'POST /service-policies': { id: 'p1' } });
    const deps = testDeps({ api, tty: true, answers: { input: ['dial-web', 'Dail', 'Dial', 'AnyOf'] } });
    await parse(buildCreate(deps, servicePolicy), ['--services', '#all']);
    assert.equal(deps.prompts[0], 'Name of the new service policy:');
    assert.match(deps.prompts[1], /^--type: Dial \(use the services\) or Bind \(host them\) \(Dial\|Bind\)$/);
    assert.match(deps.prompts[2], /\[.*Allowed choices are Dial, Bind\]$/, 'a wrong answer is asked again, saying why');
    assert.deepEqual(api.calls.at(-1)?.body, {
      name: 'dial-web',
      type: 'Dial',
      semantic: 'AnyOf',
      serviceRoles: ['#all'],
    });
  });

  it('parses an answer as the flag would: a reference by name, JSON data', async () => {
    const api = fakeApi({
      'GET /config-types/intercept.v1': notFound('config-type', 'intercept.v1'),
      'LIST /config-types': [{ id: 'ct1', name: 'intercept.v1' }],
      'POST /configs': { id: 'c1' },
    });
    const deps = testDeps({ api, tty: true, answers: { input: ['intercept.v1', '{"port": 443}'] } });
    await parse(buildCreate(deps, config), ['web']);
    assert.deepEqual(api.calls.at(-1)?.body, { name: 'web', configTypeId: 'ct1', data: { port: 443 } });
  });

  it('gives up after three bad answers with a usage error', async () => {
    const deps = testDeps({ api: fakeApi({}), tty: true, answers: { input: ['x', 'y', 'z'] } });
    await assert.rejects(
      parse(buildCreate(deps, servicePolicy), ['p', '--semantic', 'AllOf']),
      (err: Error & { exitCode: number }) => err.exitCode === EXIT.usage && /--type/.test(err.message),
    );
  });

  it('asks nothing when everything is given', async () => {
    const api = fakeApi({ 'POST /service-policies': { id: 'p1' } });
    const deps = testDeps({ api, tty: true });
    await parse(buildCreate(deps, servicePolicy), ['p', '--type', 'Bind', '--semantic', 'AllOf']);
    assert.deepEqual(deps.prompts, []);
  });
});
