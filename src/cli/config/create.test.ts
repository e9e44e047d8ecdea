import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ApiError } from '../../protocol/errors.js';
import { BUILT_IN_CONFIG_TYPES } from '../../resources/config-type-schemas.js';
import { fakeApi } from '../testing/fake-api.js';
import { capture, parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildConfigCreate, runConfigCreate } from './create.js';
import type { ConfigCreateOptions } from './create.js';

const intercept = BUILT_IN_CONFIG_TYPES.find((t) => t.name === 'intercept.v1')!;
const DATA = { protocols: ['tcp'], addresses: ['web.ziti'], portRanges: [{ low: 443, high: 443 }] };

async function options(argv: string[]): Promise<ConfigCreateOptions> {
  const spy = capture<ConfigCreateOptions>();
  await parse(buildConfigCreate(testDeps(), spy.run), argv);
  return spy.last();
}

const dir = mkdtempSync(join(tmpdir(), 'ctl-config-create-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A controller that knows intercept.v1 by name (GET by id misses, the name filter finds it), and `routes`. */
function controller(routes: Record<string, unknown> = {}) {
  return fakeApi({
    'GET /config-types/intercept.v1': new ApiError('NOT_FOUND', { status: 404 }),
    'LIST /config-types': [{ ...intercept, _links: {} }],
    ...routes,
  });
}

describe('config create flags', () => {
  it('reads the name, the type, the data (inline or @file) and tags', async () => {
    const file = join(dir, 'data.json');
    writeFileSync(file, JSON.stringify(DATA));
    assert.deepEqual(
      await options(['web', '--type', 'intercept.v1', '--data', JSON.stringify(DATA), '--tags', 'k=v']),
      {
        name: 'web',
        type: 'intercept.v1',
        data: DATA,
        input: { body: { tags: { k: 'v' } }, refs: [] },
      },
    );
    assert.deepEqual((await options(['web', '--type', 'intercept.v1', '--data', `@${file}`])).data, DATA);
  });

  it('takes --config-type as a synonym of --type', async () => {
    assert.equal((await options(['web', '--config-type', 'intercept.v1', '--data', '{}'])).type, 'intercept.v1');
  });

  it('requires --type and --data, and a JSON object', async () => {
    await assert.rejects(options(['web', '--data', '{}']), /--type/);
    await assert.rejects(options(['web', '--type', 'intercept.v1']), /--data/);
    await assert.rejects(options(['web', '--type', 'intercept.v1', '--data', '[1]']), /expected a JSON object/);
  });
});

describe('config create run', () => {
  it("sends the data with the type's id when it satisfies the schema, and prints the id", async () => {
    const api = controller({ 'POST /configs': { id: 'c1', _links: {} } });
    const deps = testDeps({ api });
    await runConfigCreate({ name: 'web', type: 'intercept.v1', data: DATA, input: { body: {}, refs: [] } }, deps);
    assert.deepEqual(api.calls.at(-1), {
      method: 'POST',
      path: '/configs',
      body: { name: 'web', configTypeId: 'g7cIWbcGg', data: DATA },
    });
    assert.equal(deps.io.stdoutText(), 'c1\n');
  });

  it('refuses data failing the schema before sending, naming the path (exit 6, as a controller refusal)', async () => {
    const api = controller();
    const bad = { ...DATA, portRanges: [{ low: 443, high: 70000 }] };
    await assert.rejects(
      runConfigCreate(
        { name: 'web', type: 'intercept.v1', data: bad, input: { body: {}, refs: [] } },
        testDeps({ api }),
      ),
      (err: Error & { exitCode: number; details: string[] }) => {
        assert.match(err.message, /schema of config type intercept\.v1: data\.portRanges\.0\.high must be <= 65535/);
        assert.ok(err.details.includes('field: data.portRanges.0.high'));
        assert.equal(err.exitCode, 6);
        return true;
      },
    );
    assert.ok(!api.calls.some((c) => c.method === 'POST'), 'nothing was sent');
    const missing = { protocols: ['tcp'], addresses: ['x'] };
    await assert.rejects(
      runConfigCreate(
        { name: 'web', type: 'intercept.v1', data: missing, input: { body: {}, refs: [] } },
        testDeps({ api: controller() }),
      ),
      /data\.portRanges is required/,
    );
  });
});
