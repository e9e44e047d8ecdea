// Config types and configs through the built CLI, against the real controller: the generic create (the name as
// the argument, every other field a flag, JSON from text, @FILE or stdin), references by name, the controller's
// schema check reported with the failing path and exit 6, and list/show/delete derived from the catalogue.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { jsonItems } from '../helpers/cli.js';
import { useCliFixture } from '../helpers/cli-fixture.js';
import { assertStatus } from '../helpers/controller.js';

const f = useCliFixture('config-cli');

const SCHEMA = {
  type: 'object',
  properties: { hostname: { type: 'string' }, port: { type: 'integer', maximum: 65535 } },
  required: ['hostname', 'port'],
};

describe('ctl config-type and ctl config', () => {
  it('creates a type from a schema file and a config of it by name; prints the ids', async () => {
    const schemaFile = path.join(f.tmp, 'schema.json');
    await writeFile(schemaFile, JSON.stringify(SCHEMA));
    const type = await f.cli.expect(0, ['config-type', 'create', 'tunnel.v1', '--schema', `@${schemaFile}`]);
    const typeId = type.stdout.trim();
    const config = await f.cli.expect(0, [
      'config',
      'create',
      'web',
      '--config-type',
      'tunnel.v1',
      '--data',
      '{"hostname":"web.internal","port":443}',
    ]);
    const res = await f.admin.get(`/configs/${config.stdout.trim()}`);
    assertStatus(res, 200);
    assert.equal(res.body.data.configTypeId, typeId);
    assert.deepEqual(res.body.data.data, { hostname: 'web.internal', port: 443 });
  });

  it('reads --data from stdin with -', async () => {
    const r = await f.cli.expect(0, ['config', 'create', 'api', '--config-type', 'tunnel.v1', '--data', '-'], {
      stdin: '{"hostname":"api","port":8443}',
    });
    assert.match(r.stdout.trim(), /^\S+$/);
  });

  it('reports data that fails the schema with the failing path, exit 6, and creates nothing', async () => {
    const r = await f.cli.expect(6, [
      'config',
      'create',
      'bad',
      '--config-type',
      'tunnel.v1',
      '--data',
      '{"hostname":"x","port":70000}',
    ]);
    assert.match(r.stderr, /data\.port/);
    const found = await f.admin.get('/configs', { query: { filter: 'name = "bad"' } });
    assert.equal(found.body.data.length, 0);
  });

  it('refuses a --data that is not JSON before calling the controller (exit 2)', async () => {
    const r = await f.cli.expect(2, ['config', 'create', 'x', '--config-type', 'tunnel.v1', '--data', '{not json']);
    assert.match(r.stderr, /not valid JSON/);
  });

  it('lists configs with their type, and will not delete a type in use', async () => {
    const list = await f.cli.expect(0, ['config', 'list', '-o', 'json']);
    assert.deepEqual(
      jsonItems(JSON.parse(list.stdout))
        .map((c) => c.name)
        .sort(),
      ['api', 'web'],
    );
    const refused = await f.cli.expect(6, ['config-type', 'delete', 'tunnel.v1', '--yes']);
    assert.match(
      refused.stderr,
      /^error: the config type 'tunnel\.v1' is referenced by configs '(api|web)', '(api|web)' \(field configTypeId\)/,
    );
  });
});
