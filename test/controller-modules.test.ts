// The controller assembles the model modules and route adapters it finds: the index the registry reads is what
// scripts/controller-modules.mjs makes of the source tree now, and a resource's behaviour added as its two files (a
// fixture laid out as src/controller/ is) has its hook run and its route answer, with no edit of registry.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { discover, INDEX_FILE, render } from '../scripts/controller-modules.mjs';
import { createController, type Controller } from '../src/controller/index.js';
import { loadOrCreatePki } from '../src/controller/pki/pki.js';
import { DISCOVERED } from '../src/controller/registry.js';
import * as fixtureModel from './fixtures/controller-modules/model/resources/identity-type.js';
import * as fixtureAdapter from './fixtures/controller-modules/routes/management/identity-types.js';
import { sharedTestPki, TEST_PASSWORD_COST } from './helpers/fixtures.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONTROLLER = join(ROOT, 'src/controller');
const FIXTURE = join(ROOT, 'test/fixtures/controller-modules');
const MANAGEMENT = '/edge/management/v1';

async function controllerWith(modules?: typeof DISCOVERED): Promise<{ app: Controller; token: string }> {
  const adminPassword = `Admin-${randomBytes(6).toString('hex')}`;
  const app = await createController({
    dataDir: '/nonexistent',
    publicUrl: 'https://127.0.0.1:1',
    pki: await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] }),
    store: { sqlite: ':memory:' },
    adminPassword,
    passwordCost: TEST_PASSWORD_COST,
    modules,
  });
  const login = await app.inject({
    method: 'POST',
    url: `${MANAGEMENT}/authenticate?method=password`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ username: 'admin', password: adminPassword }),
  });
  return { app, token: login.json().data.token };
}

const createType = (app: Controller, token: string) =>
  app.inject({
    method: 'POST',
    url: `${MANAGEMENT}/identity-types`,
    headers: { 'zt-session': token, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'Fixture' }),
  });

describe('the controller modules the registry assembles', () => {
  it('are indexed as the source tree holds them now (run node scripts/controller-modules.mjs if not)', () => {
    const found = discover(CONTROLLER);
    assert.ok(found.models.includes('model/resources/identity.ts'), 'finds a resource model module');
    assert.ok(found.models.includes('model/session-lifecycle.ts'), 'finds a module of consequences');
    assert.ok(found.adapters.includes('routes/management/identities.ts'), 'finds a route adapter');
    assert.equal(readFileSync(join(CONTROLLER, INDEX_FILE), 'utf8'), render(found));
  });

  it("are found in a new resource's two files by what they export", () => {
    assert.deepEqual(discover(FIXTURE), {
      models: ['model/resources/identity-type.ts'],
      adapters: ['routes/management/identity-types.ts'],
    });
  });

  it("run a new resource's hook and answer its route, with no edit of the registry", async () => {
    const plain = await controllerWith();
    try {
      assert.equal((await createType(plain.app, plain.token)).statusCode, 405, 'identity types are read-only');
    } finally {
      await plain.app.close();
    }
    const { app, token } = await controllerWith({
      models: [...DISCOVERED.models, fixtureModel],
      adapters: [...DISCOVERED.adapters, fixtureAdapter],
    });
    try {
      const res = await createType(app, token);
      assert.equal(res.statusCode, 201, res.body);
      const read = await app.inject({
        method: 'GET',
        url: `${MANAGEMENT}/identity-types/${res.json().data.id}`,
        headers: { 'zt-session': token },
      });
      assert.equal(read.json().data.name, 'Fixture (checked by its model)');
      const spec = await app.inject({ method: 'GET', url: `${MANAGEMENT}/specs/edge-management/spec` });
      assert.ok(JSON.parse(spec.body).paths['/identity-types'].post, 'the new route is in the served document');
    } finally {
      await app.close();
    }
  });
});
