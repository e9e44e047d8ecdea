// The built-in config types whose schemas are OpenZiti's own: served exactly as vendored (clients build their forms
// from a schema's shape, so accepting the same data is not enough), the vendored files as copied, and config data
// accepted and refused as OpenZiti does: each sample in config-type-verdicts.json carries the verdict of the
// validator OpenZiti's controller uses, and the controller here must reach the same one on create. Both stores.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { REPO_ROOT } from '../helpers/spec.js';

interface Sample {
  type: string;
  note: string;
  data: unknown;
  accepted: boolean;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { cases } = JSON.parse(readFileSync(path.join(HERE, 'config-type-verdicts.json'), 'utf8')) as { cases: Sample[] };
const VENDORED = path.join(REPO_ROOT, 'src', 'resources', 'openziti-config-types');
const VENDORED_TYPES = ['intercept.v1', 'host.v1', 'proxy.v1'];

describe("OpenZiti's config type schemas, vendored", () => {
  it('are byte for byte what their README records as copied', () => {
    const readme = readFileSync(path.join(VENDORED, 'README.md'), 'utf8');
    for (const type of VENDORED_TYPES) {
      const file = `${type}.json`;
      const digest = createHash('sha256')
        .update(readFileSync(path.join(VENDORED, file)))
        .digest('hex');
      assert.ok(readme.includes(`${digest}  ${file}`), `${file} changed since it was copied`);
    }
  });
});

for (const store of storesUnderTest()) {
  describe(`built-in config types judge data as OpenZiti does (${store})`, () => {
    let t: TestApp;
    const typeIds = new Map<string, string>();
    before(async () => {
      t = await createTestApp(store);
      const types = await t.admin.request('GET', '/config-types?limit=500');
      for (const type of types.body.data as { id: string; name: string }[]) typeIds.set(type.name, type.id);
    });
    after(async () => t?.close());

    it("serves OpenZiti's schemas unchanged, and host.v2 with host.v1's terminator", async () => {
      for (const type of VENDORED_TYPES) {
        const served = await t.admin.request('GET', `/config-types/${typeIds.get(type)}`);
        const vendored = JSON.parse(readFileSync(path.join(VENDORED, `${type}.json`), 'utf8'));
        assert.deepEqual(served.body.data.schema, vendored, type);
      }
      const hostV2 = (await t.admin.request('GET', `/config-types/${typeIds.get('host.v2')}`)).body.data.schema;
      const hostV1 = JSON.parse(readFileSync(path.join(VENDORED, 'host.v1.json'), 'utf8'));
      const { $id: _id, definitions, ...terminator } = hostV1;
      assert.deepEqual(hostV2.definitions.terminator, terminator);
      assert.deepEqual(hostV2.definitions.portCheck, definitions.portCheck);
      assert.deepEqual(hostV2.required, ['terminators']);
    });

    it('has samples of every type the verdicts cover, accepted and refused', () => {
      for (const type of ['intercept.v1', 'host.v1', 'host.v2', 'proxy.v1']) {
        const own = cases.filter((c) => c.type === type);
        assert.ok(own.some((c) => c.accepted) && own.some((c) => !c.accepted), `${type} needs both verdicts`);
      }
    });

    cases.forEach((sample, i) => {
      it(`${sample.type}, ${sample.note}: ${sample.accepted ? 'accepted' : 'refused'}`, async () => {
        const configTypeId = typeIds.get(sample.type);
        assert.ok(configTypeId, `no built-in type ${sample.type}`);
        const name = `sample-${i}`;
        const res = await t.admin.request('POST', '/configs', { json: { name, configTypeId, data: sample.data } });
        if (sample.accepted) {
          assert.equal(res.status, 201, JSON.stringify(res.body));
        } else {
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
          const left = await t.admin.request('GET', `/configs?filter=${encodeURIComponent(`name = "${name}"`)}`);
          assert.equal(left.body.data.length, 0, 'a refused config is not stored');
        }
      });
    });
  });
}
