// What routers do beyond the generic contract: enrollment JWTs on create and on re-enroll, the Router identity and
// system edge router policy of a tunneler-enabled edge router (made, renamed and removed with it), one name space and
// one list for every router (edge routers are routers too), and never being online. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyEnrollmentJwt } from '../../src/controller/pki/enrollment-jwt.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

for (const store of storesUnderTest()) {
  describe(`edge and transit routers (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    async function create(path: string, json: Record<string, unknown>): Promise<string> {
      const res = await t.admin.request('POST', path, { json });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    }

    it('creates an edge router with an erott enrollment JWT signed by the controller, never online', async () => {
      const id = await create('/edge-routers', {
        name: 'er-enroll',
        roleAttributes: ['public'],
        cost: 7,
        appData: { region: 'eu' },
      });
      const er = (await t.admin.request('GET', `/edge-routers/${id}`)).body.data;
      assert.equal(er.name, 'er-enroll');
      assert.deepEqual(er.roleAttributes, ['public']);
      assert.equal(er.cost, 7);
      assert.deepEqual(er.appData, { region: 'eu' });
      assert.equal(er.isOnline, false, 'no router holds a connection to this controller');
      assert.equal(er.isVerified, false);
      assert.equal(er.fingerprint, '');
      assert.equal(er.syncStatus, 'SYNC_UNKNOWN');
      const claims = await verifyEnrollmentJwt(er.enrollmentJwt, t.app.runtime.pki);
      assert.equal(claims.em, 'erott');
      assert.equal(claims.sub, id);
      assert.equal(claims.jti, er.enrollmentToken);
      assert.equal(claims.exp, Math.floor(Date.parse(er.enrollmentExpiresAt) / 1000));
      assert.ok(Date.parse(er.enrollmentCreatedAt) <= Date.now());
      const listed = await t.admin.request('GET', '/edge-routers', {
        query: `filter=${encodeURIComponent('name = "er-enroll"')}`,
      });
      assert.equal(listed.body.data.length, 1);
    });

    it('refuses write fields out of their bounds, naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ name: 'er-bad', cost: 65536 }, 'cost'],
        [{ name: 'er-bad', cost: -1 }, 'cost'],
        [{ name: 'er-bad', roleAttributes: ['#not-an-attribute'] }, 'roleAttributes'],
        [{ name: 'er-bad', isTunnelerEnabled: 'yes' }, 'isTunnelerEnabled'],
        [{ cost: 1 }, 'name'],
        [{ name: 'er-bad', configs: ['no-such-config'] }, 'configs'],
      ];
      for (const [json, field] of cases) {
        const res = await t.admin.request('POST', '/edge-routers', { json });
        assert.equal(res.status, 400, JSON.stringify(json));
        assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
        assert.ok(res.body.error.cause.field.startsWith(field), JSON.stringify(res.body.error));
      }
      // Nullable fields go back to their defaults.
      const id = await create('/edge-routers', {
        name: 'er-nulls',
        cost: null,
        noTraversal: null,
        disabled: null,
        roleAttributes: null,
      });
      const er = (await t.admin.request('GET', `/edge-routers/${id}`)).body.data;
      assert.deepEqual([er.cost, er.noTraversal, er.disabled, er.roleAttributes], [0, false, false, []]);
    });

    it('re-enroll replaces the enrollment and removes the enrolled certificate', async () => {
      const id = await create('/edge-routers', { name: 'er-reenroll' });
      const before = (await t.admin.request('GET', `/edge-routers/${id}`)).body.data;
      // As if the router had enrolled: what the erott enrollment leaves behind.
      const now = new Date().toISOString();
      await t.app.runtime.store.tx(async () => {
        const enrolled = {
          fingerprint: 'ab12',
          certPem: 'PEM',
          isVerified: true,
          enrollmentJwt: null,
          enrollmentToken: null,
          enrollmentCreatedAt: null,
          enrollmentExpiresAt: null,
        };
        await t.app.runtime.writes.update('edge-router', id, enrolled, now);
        await t.app.runtime.writes.update('transit-router', id, { fingerprint: 'ab12', isVerified: true }, now);
      });
      const enrolled = (await t.admin.request('GET', `/edge-routers/${id}`)).body.data;
      assert.equal(enrolled.isVerified, true);
      assert.equal(enrolled.enrollmentJwt, null, 'no outstanding enrollment once enrolled');

      const res = await t.admin.request('POST', `/edge-routers/${id}/re-enroll`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const after = (await t.admin.request('GET', `/edge-routers/${id}`)).body.data;
      assert.equal(after.isVerified, false);
      assert.equal(after.fingerprint, '');
      assert.equal(after.certPem, null);
      assert.notEqual(after.enrollmentToken, before.enrollmentToken);
      assert.notEqual(after.enrollmentJwt, before.enrollmentJwt);
      const claims = await verifyEnrollmentJwt(after.enrollmentJwt, t.app.runtime.pki);
      assert.deepEqual([claims.em, claims.sub, claims.jti], ['erott', id, after.enrollmentToken]);
      const asRouter = (await t.admin.request('GET', `/transit-routers/${id}`)).body.data;
      assert.deepEqual([asRouter.isVerified, asRouter.fingerprint], [false, ''], 'the router row follows');

      const missing = await t.admin.request('POST', '/edge-routers/no-such-router/re-enroll');
      assert.equal(missing.status, 404);
    });

    it('a tunneler-enabled router gets a Router identity and system ER policy, renamed, removed with it', async () => {
      const id = await create('/edge-routers', { name: 'er-tunneler', isTunnelerEnabled: true });
      const identity = (await t.admin.request('GET', `/identities/${id}`)).body.data;
      assert.equal(identity.name, 'er-tunneler');
      assert.equal(identity.typeId, 'Router');
      assert.equal(identity.isAdmin, false);
      const policy = await t.admin.request('GET', `/edge-router-policies/${id}`);
      assert.equal(policy.status, 200);
      assert.equal(policy.body.data.name, `edge-router-${id}-system`);
      assert.equal(policy.body.data.semantic, 'AnyOf');
      assert.deepEqual(policy.body.data.identityRoles, [`@${id}`]);
      assert.deepEqual(policy.body.data.edgeRouterRoles, [`@${id}`]);
      assert.equal((await t.app.runtime.store.repo('edge-router-policy').get(id)).isSystem, true);

      // The system policy is the router's: not to be changed or removed through the API.
      const patched = await t.admin.request('PATCH', `/edge-router-policies/${id}`, { json: { name: 'mine-now' } });
      assert.equal(patched.status, 400);
      assert.equal(patched.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
      const replaced = await t.admin.request('PUT', `/edge-router-policies/${id}`, {
        json: { name: 'mine-now', semantic: 'AllOf' },
      });
      assert.equal(replaced.body.error.code, 'ENTITY_CAN_NOT_BE_UPDATED');
      const deleted = await t.admin.request('DELETE', `/edge-router-policies/${id}`);
      assert.equal(deleted.status, 400);
      assert.equal(deleted.body.error.code, 'ENTITY_CAN_NOT_BE_DELETED');

      assert.equal(
        (await t.admin.request('PATCH', `/edge-routers/${id}`, { json: { name: 'er-tunneler-2' } })).status,
        200,
      );
      assert.equal(
        (await t.admin.request('GET', `/identities/${id}`)).body.data.name,
        'er-tunneler-2',
        'the identity follows the name',
      );
      const orphaning = await t.admin.request('DELETE', `/identities/${id}`);
      assert.equal(orphaning.status, 409, 'the identity goes with its router, not before');
      assert.equal(orphaning.body.error.code, 'CAN_NOT_DELETE_REFERENCED_ENTITY');
      const retyped = await t.admin.request('PATCH', `/identities/${id}`, { json: { type: 'Device' } });
      assert.equal(retyped.status, 400);
      assert.equal(retyped.body.error.cause.field, 'type');
      assert.equal(
        (
          await t.admin.request('PATCH', `/identities/${id}`, {
            json: { type: 'Router', roleAttributes: ['tunnelers'] },
          })
        ).status,
        200,
      );
      assert.equal(
        (await t.admin.request('GET', `/identities/${id}`)).body.data.typeId,
        'Router',
        'still a Router identity',
      );

      assert.equal(
        (await t.admin.request('PATCH', `/edge-routers/${id}`, { json: { isTunnelerEnabled: false } })).status,
        200,
      );
      assert.equal((await t.admin.request('GET', `/identities/${id}`)).status, 404, 'identity gone with the flag');
      assert.equal(
        (await t.admin.request('GET', `/edge-router-policies/${id}`)).status,
        404,
        'policy gone with the flag',
      );

      // PUT without the flag turns it off too (it defaults to false); turning it on again brings both back.
      assert.equal(
        (
          await t.admin.request('PUT', `/edge-routers/${id}`, {
            json: { name: 'er-tunneler-2', isTunnelerEnabled: true },
          })
        ).status,
        200,
      );
      assert.equal((await t.admin.request('GET', `/identities/${id}`)).status, 200);
      assert.equal(
        (await t.admin.request('PUT', `/edge-routers/${id}`, { json: { name: 'er-tunneler-2' } })).status,
        200,
      );
      assert.equal((await t.admin.request('GET', `/edge-router-policies/${id}`)).status, 404);

      assert.equal(
        (await t.admin.request('PATCH', `/edge-routers/${id}`, { json: { isTunnelerEnabled: true } })).status,
        200,
      );
      assert.equal((await t.admin.request('DELETE', `/edge-routers/${id}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/identities/${id}`)).status, 404, 'identity gone with the router');
      assert.equal(
        (await t.admin.request('GET', `/edge-router-policies/${id}`)).status,
        404,
        'policy gone with the router',
      );
    });

    it('a tunneler whose name an identity already has is refused, and nothing is left behind', async () => {
      await t.admin.request('POST', '/identities', {
        json: { name: 'taken-by-identity', type: 'User', isAdmin: false },
      });
      const res = await t.admin.request('POST', '/edge-routers', {
        json: { name: 'taken-by-identity', isTunnelerEnabled: true },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.cause.field, 'isTunnelerEnabled');
      const left = await t.admin.request('GET', '/transit-routers', {
        query: `filter=${encodeURIComponent('name = "taken-by-identity"')}`,
      });
      assert.equal(left.body.meta.pagination.totalCount, 0, 'the transaction was undone');
    });

    it('creates transit routers with a trott JWT; /transit-routers and /routers list edge routers too', async () => {
      const tr = await create('/transit-routers', { name: 'tr-1', cost: 3, noTraversal: true });
      const detail = (await t.admin.request('GET', `/transit-routers/${tr}`)).body.data;
      assert.deepEqual(
        [detail.name, detail.cost, detail.noTraversal, detail.isOnline, detail.isVerified, detail.fingerprint],
        ['tr-1', 3, true, false, false, ''],
      );
      const claims = await verifyEnrollmentJwt(detail.enrollmentJwt, t.app.runtime.pki);
      assert.deepEqual([claims.em, claims.sub, claims.jti], ['trott', tr, detail.enrollmentToken]);

      const er = await create('/edge-routers', { name: 'er-listed', cost: 9 });
      for (const path of ['/transit-routers', '/routers']) {
        const list = await t.admin.request('GET', path, { query: 'limit=-1' });
        const names = list.body.data.map((r: { name: string }) => r.name);
        assert.ok(names.includes('tr-1') && names.includes('er-listed'), `${path}: ${names}`);
      }
      const viaRouters = (await t.admin.request('GET', `/routers/${er}`)).body.data;
      assert.deepEqual([viaRouters.name, viaRouters.cost], ['er-listed', 9]);
      assert.equal(
        (await t.admin.request('GET', '/edge-routers', { query: `filter=${encodeURIComponent('name = "tr-1"')}` })).body
          .data.length,
        0,
        'a transit router is not an edge router',
      );

      // Updates through either path; an edge router's row only through /edge-routers.
      assert.equal((await t.admin.request('PATCH', `/routers/${tr}`, { json: { cost: 4 } })).status, 200);
      assert.equal(
        (await t.admin.request('PUT', `/transit-routers/${tr}`, { json: { name: 'tr-1b', disabled: true } })).status,
        200,
      );
      const updated = (await t.admin.request('GET', `/transit-routers/${tr}`)).body.data;
      assert.deepEqual([updated.name, updated.cost, updated.disabled], ['tr-1b', 0, true]);
      const refused = await t.admin.request('PATCH', `/transit-routers/${er}`, { json: { cost: 1 } });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'CAN_NOT_UPDATE_ROUTER');
      assert.equal(
        (await t.admin.request('PATCH', `/edge-routers/${er}`, { json: { cost: 11, disabled: true } })).status,
        200,
      );
      const followed = (await t.admin.request('GET', `/routers/${er}`)).body.data;
      assert.deepEqual([followed.cost, followed.disabled], [11, true], 'the router row follows its edge router');

      // Deleting an edge router through /routers deletes the edge router.
      assert.equal((await t.admin.request('DELETE', `/routers/${er}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/edge-routers/${er}`)).status, 404);
      assert.equal((await t.admin.request('DELETE', `/transit-routers/${tr}`)).status, 200);
      assert.equal((await t.admin.request('GET', `/routers/${tr}`)).status, 404);
    });

    it("takes OpenZiti's console's transit router form, which has edge router fields, as OpenZiti does", async () => {
      // ZAC 4.5 writes transit routers with its edge router model; OpenZiti drops what its router model lacks.
      const form = {
        name: 'tr-zac',
        roleAttributes: [],
        appData: {},
        isTunnelerEnabled: true,
        noTraversal: false,
        cost: 0,
        tags: {},
      };
      const id = await create('/transit-routers', form);
      assert.equal(
        (await t.admin.request('PATCH', `/transit-routers/${id}`, { json: { ...form, cost: 6 } })).status,
        200,
      );
      assert.equal((await t.admin.request('GET', `/transit-routers/${id}`)).body.data.cost, 6);
      assert.equal(
        (await t.admin.request('GET', `/identities/${id}`)).status,
        404,
        'no tunneler identity for a transit router',
      );
      const other = await t.admin.request('POST', '/transit-routers', { json: { name: 'tr-zac-2', colour: 'red' } });
      assert.equal(other.status, 400, 'other unknown fields are still refused');
    });

    it('router names are unique among all routers, edge and transit', async () => {
      await create('/edge-routers', { name: 'shared-name' });
      const tr = await t.admin.request('POST', '/transit-routers', { json: { name: 'shared-name' } });
      assert.equal(tr.status, 400);
      assert.equal(tr.body.error.cause.field, 'name');
      await create('/transit-routers', { name: 'shared-name-2' });
      const er = await t.admin.request('POST', '/edge-routers', { json: { name: 'shared-name-2' } });
      assert.equal(er.status, 400);
      assert.equal(er.body.error.cause.field, 'name');
      assert.equal(
        (
          await t.admin.request('GET', '/edge-routers', {
            query: `filter=${encodeURIComponent('name = "shared-name-2"')}`,
          })
        ).body.data.length,
        0,
      );
    });

    it('serves routers and terminators on the fabric API, in its models, to admins only', async () => {
      // The in-process client speaks the edge APIs; the fabric API is reached with a session of a second admin.
      const adminId = (
        await t.admin.request('POST', '/identities', { json: { name: 'fabric-admin', type: 'User', isAdmin: true } })
      ).body.data.id;
      await t.admin.request('POST', '/authenticators', {
        json: { method: 'updb', identityId: adminId, username: 'fabric-admin', password: 'Fabric-admin-1' },
      });
      const login = await t.anonymous.request('POST', '/authenticate', {
        query: 'method=password',
        json: { username: 'fabric-admin', password: 'Fabric-admin-1' },
      });
      const fabric = async (path: string, token: string | null = login.body.data.token) => {
        const res = await t.app.inject({
          method: 'GET',
          url: `/fabric/v1${path}`,
          headers: token ? { 'zt-session': token } : {},
        });
        return { status: res.statusCode, body: JSON.parse(res.body) };
      };
      const er = await create('/edge-routers', { name: 'er-fabric', cost: 2 });
      const tr = await create('/transit-routers', { name: 'tr-fabric' });
      const svc = (
        await t.admin.request('POST', '/services', { json: { name: 'svc-fabric', encryptionRequired: true } })
      ).body.data.id;
      const term = await create('/terminators', {
        service: svc,
        router: tr,
        binding: 'transport',
        address: 'tcp:h:1',
        identity: 'i-1',
      });

      const list = await fabric(`/routers?filter=${encodeURIComponent('name contains "fabric"')}`);
      assert.equal(list.status, 200);
      assert.equal(list.body.meta.pagination.totalCount, 2);
      const byName = new Map(list.body.data.map((r: { name: string }) => [r.name, r]));
      const router = byName.get('er-fabric') as Record<string, unknown>;
      for (const field of [
        'id',
        'createdAt',
        'updatedAt',
        '_links',
        'name',
        'fingerprint',
        'connected',
        'cost',
        'noTraversal',
        'disabled',
      ]) {
        assert.ok(field in router, `fabric router has ${field}`);
      }
      assert.deepEqual([router.id, router.cost, router.connected, router.fingerprint], [er, 2, false, '']);
      assert.equal((await fabric(`/routers/${tr}`)).body.data.name, 'tr-fabric');

      const t1 = (await fabric(`/terminators/${term}`)).body.data;
      assert.deepEqual(
        [t1.serviceId, t1.service.name, t1.routerId, t1.router.entity, t1.router.name],
        [svc, 'svc-fabric', tr, 'routers', 'tr-fabric'],
      );
      assert.deepEqual(
        [t1.instanceId, t1.binding, t1.address, t1.precedence, t1.cost, t1.dynamicCost, t1.hostId],
        ['i-1', 'transport', 'tcp:h:1', 'default', 0, 0, ''],
      );
      assert.equal((await fabric('/terminators')).body.meta.pagination.totalCount, 1);

      assert.equal((await fabric('/routers/no-such-router')).status, 404);
      assert.equal((await fabric('/routers', null)).status, 401);
      // No data plane: links and circuits are lists with nothing in them, paged and filtered as OpenZiti's are.
      for (const path of ['/links', '/circuits']) {
        const empty = { data: [], meta: { pagination: { limit: 10, offset: 0, totalCount: 0 } } };
        assert.deepEqual((await fabric(path)).body, empty);
        const paged = await fabric(`${path}?limit=5&offset=20&filter=${encodeURIComponent('id = "x"')}`);
        assert.deepEqual([paged.status, paged.body.meta.pagination], [200, { limit: 5, offset: 20, totalCount: 0 }]);
        for (const filter of ['id =', 'noSuchSymbol = 1']) {
          const bad = await fabric(`${path}?filter=${encodeURIComponent(filter)}`);
          assert.deepEqual([bad.status, bad.body.error.code], [400, 'INVALID_FILTER'], `${path} ${filter}`);
        }
        assert.equal((await fabric(path, null)).status, 401);
      }
      assert.equal((await fabric(`/links?filter=${encodeURIComponent('cost > 1')}`)).status, 200, 'a link symbol');
      assert.equal((await fabric(`/circuits?filter=${encodeURIComponent('service = "s"')}`)).status, 200, 'circuit');
      const version = (await t.anonymous.request('GET', '/version')).body.data;
      assert.equal(version.apiVersions.fabric.v1.path, '/fabric/v1');
    });

    it('counts routers as OpenZiti does: every router under routers, edge routers under routers.edge', async () => {
      const summary = (await t.admin.request('GET', '/summary')).body.data;
      const all = (await t.admin.request('GET', '/transit-routers')).body.meta.pagination.totalCount;
      const edge = (await t.admin.request('GET', '/edge-routers')).body.meta.pagination.totalCount;
      assert.equal(summary.routers, all);
      assert.equal(summary['routers.edge'], edge);
      assert.ok(all > edge);
    });
  });
}
