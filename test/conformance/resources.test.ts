// The generic contract of every catalogue resource, derived from its declaration, so that each resource added to
// the catalogue is held to it without a line of test written for it: list, filters on every filterable field,
// create with a body derived from the field types, unknown fields, wrong types, missing required fields and
// bounds refused with nothing written, get, replace, patch, delete, 404s, `_links` that are all served, and 401
// for callers who are not admins. In-process (inject), against SQLite and, when configured, PostgreSQL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CATALOGUE, resource, type FieldDef, type FieldType, type ResourceDef } from '../../src/resources/index.js';
import { filterSchema } from '../../src/controller/store/filter-schema.js';
import { createTestApp, type Client, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const token = () => randomBytes(4).toString('hex');

/** A value of the type that validation accepts; references are created from their own derived bodies. */
async function validValue(admin: Client, type: FieldType, field: string): Promise<unknown> {
  switch (type.kind) {
    case 'string':
      return type.format === 'date-time'
        ? new Date(Date.now() + 3_600_000).toISOString()
        : `${field}-${token()}`.slice(0, type.maxLength ?? 1024);
    case 'integer':
      return type.minimum ?? 0;
    case 'boolean':
      return false;
    case 'enum':
      return type.values[0];
    case 'attributes':
      return ['conformance'];
    case 'tags':
    case 'object':
    case 'map':
      return {};
    case 'ref':
      return createEntity(admin, resource(type.resource));
    case 'refList':
      return [await createEntity(admin, resource(type.resource))];
    case 'roles':
      return ['#all'];
    case 'array':
      return [];
  }
}

/** A body that no validator accepts for the type (or undefined when every JSON value is acceptable). */
function wrongValue(type: FieldType): unknown {
  switch (type.kind) {
    case 'string':
    case 'enum':
    case 'ref':
      return 12345;
    case 'integer':
      return 'not a number';
    case 'boolean':
      return 'not a boolean';
    case 'attributes':
    case 'refList':
    case 'roles':
    case 'array':
      return 'not a list';
    case 'tags':
    case 'object':
    case 'map':
      return ['not', 'an', 'object'];
  }
}

function writable(field: FieldDef, verb: 'create' | 'replace'): boolean {
  return field[verb] !== 'no' && !field.readOnly && !field.internal && !field.computed;
}

/** Whether a field belongs in a body: fields of some kinds only (`when`) when the body's discriminator is one. */
function applies(field: FieldDef, body: Record<string, unknown>): boolean {
  return !field.when || field.when.in.includes(body[field.when.field] as string);
}

/**
 * A valid body for `verb`: every required field from its type, then the resource's own example values (which may
 * choose the discriminator), then the required fields of that kind.
 */
async function validBody(
  admin: Client,
  def: ResourceDef,
  verb: 'create' | 'replace',
): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(def.fields)) {
    if (writable(field, verb) && field[verb] === 'required' && !field.when)
      body[name] = await validValue(admin, field.type, name);
  }
  for (const [name, value] of Object.entries(def.example ?? {})) {
    if (verb === 'create' || (def.fields[name] && writable(def.fields[name], verb))) {
      body[name] = typeof value === 'string' ? value.replaceAll('$unique', token()) : value;
    }
  }
  for (const [name, field] of Object.entries(def.fields)) {
    if (writable(field, verb) && field[verb] === 'required' && field.when && applies(field, body) && !(name in body))
      body[name] = await validValue(admin, field.type, name);
  }
  return body;
}

async function createEntity(admin: Client, def: ResourceDef): Promise<string> {
  const res = await admin.request('POST', `/${def.plural}`, { json: await validBody(admin, def, 'create') });
  assert.equal(res.status, 201, `create ${def.name}: ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

async function count(admin: Client, def: ResourceDef): Promise<number> {
  return (await admin.request('GET', `/${def.plural}`, { query: 'limit=1' })).body.meta.pagination.totalCount;
}

function assertRefused(res: { status: number; body: any }, field: string | undefined, what: string) {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE', what);
  if (field !== undefined) assert.equal(res.body.error.cause?.field, field, `${what}: the cause names ${field}`);
}

/** A literal of the symbol's type, for `field = <literal>`. */
function literalFor(type: string): string {
  return type === 'number'
    ? '0'
    : type === 'boolean'
      ? 'true'
      : type === 'datetime'
        ? 'datetime(2026-01-01T00:00:00Z)'
        : '"x"';
}

const managed = CATALOGUE.filter((def) => def.api === 'management');

for (const store of storesUnderTest()) {
  describe(`every resource honours the generic contract (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    for (const def of managed) {
      const ops = new Set(def.operations);
      describe(def.plural, () => {
        it('lists with pagination and the filterable fields the store derives', async () => {
          const res = await t.admin.request('GET', `/${def.plural}`);
          assert.equal(res.status, 200);
          assert.ok(Array.isArray(res.body.data));
          assert.deepEqual(Object.keys(res.body.meta.pagination).sort(), ['limit', 'offset', 'totalCount']);
          assert.deepEqual([...res.body.meta.filterableFields].sort(), Object.keys(filterSchema(def).symbols).sort());
        });

        it('filters on every filterable field, and refuses an unknown one', async () => {
          for (const [name, symbol] of Object.entries(filterSchema(def).symbols)) {
            const filter = symbol.kind === 'set' ? `anyOf(${name}) = "x"` : `${name} = ${literalFor(symbol.type)}`;
            const res = await t.admin.request('GET', `/${def.plural}`, {
              query: `filter=${encodeURIComponent(filter)}`,
            });
            assert.equal(res.status, 200, `${filter}: ${JSON.stringify(res.body)}`);
          }
          const bad = await t.admin.request('GET', `/${def.plural}`, {
            query: `filter=${encodeURIComponent('noSuchField = 1')}`,
          });
          assert.equal(bad.status, 400);
          assert.equal(bad.body.error.code, 'INVALID_FILTER');
        });

        it('answers 404 for an unknown id', async () => {
          if (!ops.has('get')) return;
          const res = await t.admin.request('GET', `/${def.plural}/no-such-id`);
          assert.equal(res.status, 404);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        });

        it('lists the relations of an unknown parent as OpenZiti: empty, or 404 if it reads the parent', async () => {
          for (const [name, rel] of Object.entries(def.relations ?? {})) {
            const res = await t.admin.request('GET', `/${def.plural}/no-such-id/${name}`);
            if (rel.readsParent) {
              assert.equal(res.status, 404, `${name}: ${JSON.stringify(res.body)}`);
              assert.equal(res.body.error.code, 'NOT_FOUND');
            } else {
              assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
              assert.deepEqual([res.body.data, res.body.meta.pagination.totalCount], [[], 0], name);
            }
          }
        });

        it('refuses callers who are not admins, and anonymous ones, with 401', async () => {
          for (const caller of [t.anonymous, t.user]) {
            const res = await caller.request('GET', `/${def.plural}`);
            assert.equal(res.status, 401);
            if (ops.has('create'))
              assert.equal((await caller.request('POST', `/${def.plural}`, { json: {} })).status, 401);
            if (ops.has('delete'))
              assert.equal((await caller.request('DELETE', `/${def.plural}/anything`)).status, 401);
          }
        });

        if (!ops.has('create')) return;

        it('creates from a body derived from its declaration, and reads back what it wrote', async () => {
          const body = await validBody(t.admin, def, 'create');
          const res = await t.admin.request('POST', `/${def.plural}`, { json: body });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          const read = await t.admin.request('GET', `/${def.plural}/${res.body.data.id}`);
          assert.equal(read.status, 200);
          for (const [name, value] of Object.entries(body)) {
            const field = def.fields[name];
            if (!field || field.secret || field.virtual || typeof value === 'object') continue;
            // A field read as another type (identity `type` as an entity reference to a type stored as Default, a
            // terminator's `service` id as an entity reference) is checked by its resource's own tests; every other
            // scalar reads back as written.
            if (field.read?.type) continue;
            assert.deepEqual(read.body.data[name], value, `${name} reads back`);
          }
        });

        it("takes what forms echo: an empty id on create, the entity's own id on patch", async () => {
          const body = await validBody(t.admin, def, 'create');
          const res = await t.admin.request('POST', `/${def.plural}`, { json: { ...body, id: '' } });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          const id = res.body.data.id as string;
          assert.notEqual(id, '');
          if (ops.has('patch')) {
            const patched = await t.admin.request('PATCH', `/${def.plural}/${id}`, { json: { id } });
            assert.equal(patched.status, 200, JSON.stringify(patched.body));
          }
        });

        it('refuses unknown fields, wrong types and missing required fields, and writes nothing', async () => {
          const before = await count(t.admin, def);
          const body = await validBody(t.admin, def, 'create');
          assertRefused(
            await t.admin.request('POST', `/${def.plural}`, { json: { ...body, noSuchField: 1 } }),
            undefined,
            'unknown field',
          );
          for (const [name, field] of Object.entries(def.fields)) {
            // A field of another kind is not this body's: the behaviour drops it unchecked (as OpenZiti does).
            if (!writable(field, 'create') || !applies(field, body)) continue;
            const wrong = wrongValue(field.type);
            assertRefused(
              await t.admin.request('POST', `/${def.plural}`, { json: { ...body, [name]: wrong } }),
              name,
              `${name}: ${JSON.stringify(wrong)}`,
            );
            if (field.create === 'required') {
              const { [name]: _left, ...rest } = body;
              assertRefused(await t.admin.request('POST', `/${def.plural}`, { json: rest }), name, `${name} missing`);
            }
          }
          assert.equal(await count(t.admin, def), before, 'nothing was written');
        });

        it('refuses values out of their bounds', async () => {
          const body = await validBody(t.admin, def, 'create');
          for (const [name, field] of Object.entries(def.fields)) {
            if (!writable(field, 'create') || !applies(field, body)) continue;
            const type = field.type;
            const outside: unknown[] = [];
            if (type.kind === 'integer' && type.minimum !== undefined) outside.push(type.minimum - 1);
            if (type.kind === 'integer' && type.maximum !== undefined) outside.push(type.maximum + 1);
            if (type.kind === 'string' && type.maxLength !== undefined) outside.push('x'.repeat(type.maxLength + 1));
            if (type.kind === 'enum') outside.push('not-one-of-them');
            for (const value of outside)
              assertRefused(
                await t.admin.request('POST', `/${def.plural}`, { json: { ...body, [name]: value } }),
                name,
                `${name} = ${String(value).slice(0, 20)}`,
              );
          }
        });

        it('serves every _link it advertises', async () => {
          const id = await createEntity(t.admin, def);
          const read = await t.admin.request('GET', `/${def.plural}/${id}`);
          for (const [name, link] of Object.entries(read.body.data._links as Record<string, { href: string }>)) {
            const res = await t.admin.request('GET', `/${link.href.replace(/^\.\//, '')}`);
            assert.notEqual(res.status, 404, `_links.${name} (${link.href}) is served`);
            assert.equal(res.status, 200, `_links.${name} (${link.href}): ${JSON.stringify(res.body).slice(0, 300)}`);
          }
        });

        it('replaces, patches and deletes; then the entity is gone', async () => {
          const id = await createEntity(t.admin, def);
          if (ops.has('patch'))
            assert.equal((await t.admin.request('PATCH', `/${def.plural}/${id}`, { json: {} })).status, 200);
          if (ops.has('replace')) {
            const res = await t.admin.request('PUT', `/${def.plural}/${id}`, {
              json: await validBody(t.admin, def, 'replace'),
            });
            assert.equal(res.status, 200, JSON.stringify(res.body));
          }
          if (!ops.has('delete')) return;
          assert.equal((await t.admin.request('DELETE', `/${def.plural}/${id}`)).status, 200);
          assert.equal((await t.admin.request('GET', `/${def.plural}/${id}`)).status, 404);
          assert.equal((await t.admin.request('DELETE', `/${def.plural}/${id}`)).status, 404);
        });
      });
    }
  });
}
