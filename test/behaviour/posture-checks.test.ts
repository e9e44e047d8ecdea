// What posture checks do beyond the generic contract: every kind with its own fields (a discriminated union on
// typeId), the read model of each kind valid against OpenZiti's definition of that kind, the rules OpenZiti adds
// (OS versions are semver ranges, hashes lower case, MFA timeouts of 0 or less are -1), a kind that never changes,
// the role-attribute list, and the built-in posture check types. In-process, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';
import { definitionValidator, formatErrors } from '../helpers/spec.js';

const SHA512 = 'AB'.repeat(64);
const SHA1 = 'CD'.repeat(20);

/** A valid create body of each kind, and the OpenZiti definition its read model must satisfy. */
const KINDS: Record<string, { body: Record<string, unknown>; detail: string }> = {
  OS: {
    detail: 'postureCheckOperatingSystemDetail',
    body: {
      operatingSystems: [
        { type: 'Windows', versions: ['>=10.0.19041'] },
        { type: 'macOS', versions: [] },
      ],
    },
  },
  PROCESS: {
    detail: 'postureCheckProcessDetail',
    body: { process: { osType: 'Windows', path: 'C:\\av.exe', hashes: [SHA512], signerFingerprint: SHA1 } },
  },
  PROCESS_MULTI: {
    detail: 'postureCheckProcessMultiDetail',
    body: {
      semantic: 'AnyOf',
      processes: [
        { osType: 'Linux', path: '/usr/bin/av' },
        { osType: 'Windows', path: 'C:\\av.exe', hashes: [SHA512] },
      ],
    },
  },
  DOMAIN: { detail: 'postureCheckDomainDetail', body: { domains: ['corp.example.com'] } },
  MAC: { detail: 'postureCheckMacAddressDetail', body: { macAddresses: ['001122334455'] } },
  MFA: { detail: 'postureCheckMfaDetail', body: { timeoutSeconds: 300, promptOnWake: true } },
};

/** Which kinds serve each kind field (MFA checks always carry their four options). */
const KIND_FIELDS: Record<string, string[]> = {
  operatingSystems: ['OS'],
  process: ['PROCESS'],
  semantic: ['PROCESS_MULTI'],
  processes: ['PROCESS_MULTI'],
  domains: ['DOMAIN'],
  macAddresses: ['MAC'],
  timeoutSeconds: ['MFA'],
  promptOnWake: ['MFA'],
  promptOnUnlock: ['MFA'],
  ignoreLegacyEndpoints: ['MFA'],
};

for (const store of storesUnderTest()) {
  describe(`posture checks (${store})`, () => {
    let t: TestApp;
    let n = 0;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    async function create(typeId: string, extra: Record<string, unknown> = {}): Promise<string> {
      const res = await t.admin.request('POST', '/posture-checks', {
        json: { name: `check-${++n}`, typeId, ...KINDS[typeId].body, ...extra },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id;
    }
    const read = async (id: string): Promise<any> => (await t.admin.request('GET', `/posture-checks/${id}`)).body.data;
    function refused(res: { status: number; body: any }, field: string, reason?: RegExp) {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'COULD_NOT_VALIDATE');
      assert.equal(res.body.error.cause.field, field, JSON.stringify(res.body.error));
      if (reason) assert.match(res.body.error.cause.reason, reason);
    }

    for (const [typeId, { detail }] of Object.entries(KINDS)) {
      it(`creates a ${typeId} check read as OpenZiti's ${detail}, with no other kind's fields`, async () => {
        const check: Record<string, unknown> = await read(await create(typeId, { roleAttributes: ['laptops'] }));
        assert.equal(check.typeId, typeId);
        assert.equal(check.version, 1);
        const validate = definitionValidator('management', detail);
        const valid = validate(check);
        assert.ok(valid, `${detail}:\n${formatErrors(validate.errors)}\n${JSON.stringify(check)}`);
        for (const [field, kinds] of Object.entries(KIND_FIELDS))
          assert.equal(field in check, kinds.includes(typeId), `${field} is served for ${kinds} only`);
      });
    }

    it('stores what OpenZiti stores: hashes and signers in lowercase, empty lists for none, MFA defaults', async () => {
      const process = await read(await create('PROCESS'));
      assert.deepEqual(process.process, {
        osType: 'Windows',
        path: 'C:\\av.exe',
        hashes: [SHA512.toLowerCase()],
        signerFingerprint: SHA1.toLowerCase(),
      });
      const multi = await read(await create('PROCESS_MULTI'));
      assert.deepEqual(multi.processes[0], {
        osType: 'Linux',
        path: '/usr/bin/av',
        hashes: [],
        signerFingerprints: [],
      });
      const mfa = await read(
        (await t.admin.request('POST', '/posture-checks', { json: { name: 'mfa-defaults', typeId: 'MFA' } })).body.data
          .id,
      );
      assert.deepEqual(
        [mfa.timeoutSeconds, mfa.promptOnWake, mfa.promptOnUnlock, mfa.ignoreLegacyEndpoints],
        [-1, false, false, false],
      );
      const zero = await read(await create('MFA', { timeoutSeconds: 0 }));
      assert.equal(zero.timeoutSeconds, -1, 'a timeout of 0 or less means none');
    });

    it("ignores other kinds' fields when a body names its kind, like OpenZiti (its console sends all)", async () => {
      // What the console posts for a new DOMAIN check: every kind's fields, the others empty.
      const zacBody = {
        name: 'zac-domain',
        typeId: 'DOMAIN',
        semantic: 'AllOf',
        roleAttributes: [],
        domains: ['corp.example.com'],
        macAddresses: [],
        operatingSystems: [],
        processes: [{ hashes: [], osType: '', path: '', signerFingerprints: [] }],
        process: { hashes: [], osType: '', path: '', signerFingerprint: '' },
        promptOnWake: false,
        promptOnUnlock: false,
        timeoutSeconds: 0,
        tags: {},
      };
      const res = await t.admin.request('POST', '/posture-checks', { json: zacBody });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const check = await read(res.body.data.id);
      assert.deepEqual(check.domains, ['corp.example.com']);
      for (const field of ['macAddresses', 'process', 'processes', 'semantic', 'promptOnWake', 'timeoutSeconds'])
        assert.equal(field in check, false, field);
      const prompts = await t.admin.request('GET', '/posture-checks', {
        query: `filter=${encodeURIComponent('name = "zac-domain" and promptOnWake = false')}`,
      });
      assert.equal(prompts.body.data.length, 0, 'nothing of the MFA options was stored');
    });

    it("drops members the kind's objects lack, as OpenZiti does (the console sends its form state along)", async () => {
      const os = await create('OS', {
        operatingSystems: [{ type: 'Linux', versions: ['5.x'], enabled: true, isAdvanced: true, min: '', max: '' }],
      });
      assert.deepEqual((await read(os)).operatingSystems, [{ type: 'Linux', versions: ['5.x'] }]);
      const av = await create('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/av', hash: 'typo' } });
      assert.deepEqual((await read(av)).process, { osType: 'Linux', path: '/usr/bin/av', hashes: [] });
    });

    it('stores MAC addresses reduced to the hex digits that clients report, whatever the separators', async () => {
      const check = await read(
        await create('MAC', { macAddresses: ['00:11:22:AA:BB:CC', '00-11-22-aa-bb-cc', '66778899aabb'] }),
      );
      assert.deepEqual(check.macAddresses, ['001122aabbcc', '66778899aabb']);
      refused(
        await t.admin.request('POST', '/posture-checks', {
          json: { name: 'no-hex', typeId: 'MAC', macAddresses: ['zz:zz'] },
        }),
        'macAddresses.0',
        /no hex digits/,
      );
    });

    it("requires each kind's fields, naming the field", async () => {
      const post = (json: Record<string, unknown>) =>
        t.admin.request('POST', '/posture-checks', { json: { name: `bad-${++n}`, ...json } });
      refused(await post({ typeId: 'DOMAIN' }), 'domains', /required/);
      refused(await post({ typeId: 'DOMAIN', domains: [] }), 'domains');
      refused(await post({ typeId: 'MAC', macAddresses: [] }), 'macAddresses');
      refused(await post({ typeId: 'OS', operatingSystems: [] }), 'operatingSystems');
      refused(
        await post({ typeId: 'PROCESS_MULTI', processes: [{ osType: 'Linux', path: '/a' }] }),
        'semantic',
        /required/,
      );
      refused(await post({ typeId: 'PROCESS', process: { osType: 'BeOS', path: '/a' } }), 'process.osType', /one of/);
      refused(await post({ typeId: 'PROCESS', process: { osType: 'Linux' } }), 'process.path', /required/);
      refused(
        await post({ typeId: 'OS', operatingSystems: [{ type: 'Windows' }] }),
        'operatingSystems.0.versions',
        /required/,
      );
      refused(
        await post({ typeId: 'PROCESS_MULTI', semantic: 'Most', processes: [{ osType: 'Linux', path: '/a' }] }),
        'semantic',
      );
      refused(await post({ typeId: 'NFC' }), 'typeId', /one of/);
    });

    it('takes OS versions as OpenZiti does (semver ranges), naming the bad one, and each OS once', async () => {
      const ok = await create('OS', {
        operatingSystems: [
          { type: 'Windows', versions: ['10.0.19041', '>=10.0.22000 <11.0.0'] },
          { type: 'Linux', versions: ['5.x'] },
        ],
      });
      assert.deepEqual((await read(ok)).operatingSystems[1], { type: 'Linux', versions: ['5.x'] });
      const post = (operatingSystems: unknown) =>
        t.admin.request('POST', '/posture-checks', { json: { name: `os-${++n}`, typeId: 'OS', operatingSystems } });
      refused(
        await post([{ type: 'macOS', versions: ['13.0.0', '13'] }]),
        'operatingSystems.0.versions.1',
        /not a version range/,
      );
      refused(
        await post([
          { type: 'Windows', versions: [] },
          { type: 'Windows', versions: ['10.0.0'] },
        ]),
        'operatingSystems.1.type',
        /twice/,
      );
    });

    it('replaces and patches within the kind; a body naming another kind is refused and changes nothing', async () => {
      const id = await create('DOMAIN');
      const put = await t.admin.request('PUT', `/posture-checks/${id}`, {
        json: { name: 'corp-domains', domains: ['a.example', 'b.example'] },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual((await read(id)).domains, ['a.example', 'b.example']);
      const patch = await t.admin.request('PATCH', `/posture-checks/${id}`, {
        json: { typeId: 'DOMAIN', domains: ['c.example'] },
      });
      assert.equal(patch.status, 200, 'a patch may repeat the kind, as OpenZiti clients send it');
      assert.deepEqual((await read(id)).domains, ['c.example']);

      refused(
        await t.admin.request('PUT', `/posture-checks/${id}`, { json: { name: 'corp-domains' } }),
        'domains',
        /required/,
      );
      refused(
        await t.admin.request('PATCH', `/posture-checks/${id}`, {
          json: { typeId: 'MAC', macAddresses: ['001122334455'] },
        }),
        'typeId',
        /keeps its kind/,
      );
      refused(
        await t.admin.request('PUT', `/posture-checks/${id}`, { json: { name: 'x', typeId: 'MFA' } }),
        'typeId',
        /keeps its kind/,
      );
      refused(
        await t.admin.request('PATCH', `/posture-checks/${id}`, { json: { macAddresses: ['001122334455'] } }),
        'macAddresses',
        /belongs to MAC/,
      );
      refused(
        await t.admin.request('PUT', `/posture-checks/${id}`, {
          json: { name: 'x', domains: ['d'], promptOnWake: true },
        }),
        'promptOnWake',
        /belongs to MFA/,
      );
      const after = await read(id);
      assert.deepEqual([after.name, after.typeId, after.domains], ['corp-domains', 'DOMAIN', ['c.example']]);
    });

    it('a replace resets what it leaves out (MFA options to their defaults); a patch keeps it', async () => {
      const id = await create('MFA', { promptOnUnlock: true, ignoreLegacyEndpoints: true });
      assert.equal(
        (await t.admin.request('PATCH', `/posture-checks/${id}`, { json: { timeoutSeconds: 60 } })).status,
        200,
      );
      let check = await read(id);
      assert.deepEqual(
        [check.timeoutSeconds, check.promptOnWake, check.promptOnUnlock, check.ignoreLegacyEndpoints],
        [60, true, true, true],
      );
      assert.equal(
        (
          await t.admin.request('PUT', `/posture-checks/${id}`, {
            json: { name: check.name, typeId: 'MFA', promptOnWake: true },
          })
        ).status,
        200,
      );
      check = await read(id);
      assert.deepEqual(
        [check.timeoutSeconds, check.promptOnWake, check.promptOnUnlock, check.ignoreLegacyEndpoints],
        [-1, true, false, false],
      );
      assert.equal(
        (await t.admin.request('PATCH', `/posture-checks/${id}`, { json: { promptOnWake: null } })).status,
        200,
      );
      assert.equal((await read(id)).promptOnWake, false, 'null goes back to the default');
    });

    it('filters by kind and by MFA prompts (other kinds have none), and lists the role attributes in use', async () => {
      await create('MAC', { roleAttributes: ['lab-macs'] });
      const list = async (filter: string) =>
        (await t.admin.request('GET', '/posture-checks', { query: `limit=-1&filter=${encodeURIComponent(filter)}` }))
          .body.data as { typeId: string }[];
      const macs = await list('typeId = "MAC"');
      assert.ok(macs.length >= 1);
      assert.ok(macs.every((c) => c.typeId === 'MAC'));
      const unprompted = await list('promptOnWake = false');
      assert.ok(
        unprompted.length >= 1 && unprompted.every((c) => c.typeId === 'MFA'),
        'only MFA checks have a promptOnWake',
      );
      const attrs = await t.admin.request('GET', '/posture-check-role-attributes', {
        query: `filter=${encodeURIComponent('id = "lab-macs"')}`,
      });
      assert.equal(attrs.status, 200);
      assert.deepEqual(attrs.body.data, ['lab-macs']);
    });

    it('serves the built-in posture check types, read-only, valid against OpenZiti', async () => {
      const list = await t.admin.request('GET', '/posture-check-types', { query: 'limit=-1' });
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((x: { id: string }) => x.id).sort(), [
        'DOMAIN',
        'MAC',
        'OS',
        'PROCESS',
        'PROCESS_MULTI',
      ]);
      const os = (await t.admin.request('GET', '/posture-check-types/OS')).body.data;
      assert.equal(os.name, 'Operating System Check');
      assert.deepEqual(
        os.operatingSystems.find((o: { type: string }) => o.type === 'Windows'),
        { type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] },
      );
      const validate = definitionValidator('management', 'postureCheckTypeDetail');
      for (const type of list.body.data) assert.ok(validate(type), `${type.id}:\n${formatErrors(validate.errors)}`);
      assert.deepEqual(
        (await t.admin.request('GET', '/posture-check-types/PROCESS_MULTI')).body.data.operatingSystems.map(
          (o: { versions: string[] }) => o.versions,
        ),
        [[], [], []],
      );
      assert.equal((await t.admin.request('POST', '/posture-check-types', { json: { name: 'NFC' } })).status, 405);
      assert.equal(
        (await t.admin.request('GET', '/posture-check-types/MFA')).status,
        404,
        'OpenZiti has no MFA type row',
      );
    });
  });
}
