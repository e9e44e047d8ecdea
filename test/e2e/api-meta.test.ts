// Informational endpoints: version (both bases, `/`, and the server root), capabilities, specs, identity types,
// summary, the EST CA store (both bases and the root; base64 PKCS#7 that decodes to the CA bundle), and CORS.
// Every response is validated against the spec by the HTTP helper.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import forge from 'node-forge';
import { parse as parseYaml } from 'yaml';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createIdentity,
  createUser,
  startTestController,
  unique,
} from '../helpers/controller.js';
import { BASE_PATHS } from '../helpers/spec.js';

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
});

after(async () => {
  await ctl?.close();
});

/** The DER of every certificate in a PEM bundle. */
function pemBundleDers(pem: string): Buffer[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b).raw);
}

/**
 * Decodes a base64 "certs-only" PKCS#7 SignedData with node-forge's ASN.1 reader (key-type agnostic: forge's
 * certificate parser only handles RSA) and returns the DER of each certificate it carries.
 */
function pkcs7CertDers(base64: string): Buffer[] {
  const der = forge.util.decode64(base64.replace(/\s+/g, ''));
  const contentInfo = forge.asn1.fromDer(der);
  const children = contentInfo.value as forge.asn1.Asn1[];
  assert.equal(forge.asn1.derToOid(children[0]!.value as string), '1.2.840.113549.1.7.2', 'ContentInfo is signedData');
  const explicit = children[1]!;
  const signedData = (explicit.value as forge.asn1.Asn1[])[0]!;
  const fields = signedData.value as forge.asn1.Asn1[];
  // SignedData: version, digestAlgorithms, contentInfo, [0] IMPLICIT certificates, [1] crls?, signerInfos
  const certs = fields.find((f) => f.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && f.type === 0);
  assert.ok(certs, 'the SignedData carries certificates');
  const signerInfos = fields[fields.length - 1]!;
  assert.equal((signerInfos.value as forge.asn1.Asn1[]).length, 0, 'certs-only: no signer infos');
  return (certs.value as forge.asn1.Asn1[]).map((c) => Buffer.from(forge.asn1.toDer(c).getBytes(), 'binary'));
}

describe('version', () => {
  function checkVersion(data: Record<string, any>) {
    assert.equal(typeof data.version, 'string');
    assert.ok(data.version.length > 0);
    for (const k of ['revision', 'buildDate', 'runtimeVersion']) assert.equal(typeof data[k], 'string', k);
    assert.ok(Array.isArray(data.capabilities));
    const versions = data.apiVersions;
    assert.equal(versions['edge-management']?.v1?.path, '/edge/management/v1');
    assert.equal(versions['edge-client']?.v1?.path, '/edge/client/v1');
    for (const [name, path] of [
      ['edge-management', '/edge/management/v1'],
      ['edge-client', '/edge/client/v1'],
    ] as const) {
      const urls = versions[name].v1.apiBaseUrls as string[];
      assert.ok(Array.isArray(urls) && urls.length > 0, `${name} apiBaseUrls`);
      for (const u of urls) {
        const url = new URL(u);
        assert.equal(url.protocol, 'https:');
        assert.equal(url.pathname, path);
        assert.equal(url.port, String(ctl.port));
      }
    }
  }

  it('GET /version on both bases, without authentication', async () => {
    for (const api of ['management', 'client'] as const) {
      const res = await ctl.api.get('/version', { api });
      assertStatus(res, 200, api);
      checkVersion(res.body.data);
    }
  });

  it('GET / on both bases returns the same version information', async () => {
    const v = (await ctl.api.get('/version')).body.data;
    for (const api of ['management', 'client'] as const) {
      const res = await ctl.api.get('/', { api });
      assertStatus(res, 200, api);
      assert.deepEqual(res.body.data, v);
    }
  });

  it('GET /version and GET / at the server root', async () => {
    const v = (await ctl.api.get('/version')).body.data;
    for (const p of ['/version', '/']) {
      const res = await ctl.api.get(p, { api: 'root' });
      assertStatus(res, 200, p);
      assert.deepEqual(res.body.data, v);
    }
  });

  it('a token is not needed but does no harm', async () => {
    assertStatus(await admin.get('/version'), 200);
    assertStatus(await ctl.api.as('garbage').get('/version'), 200);
  });
});

describe('capabilities and specs', () => {
  it('GET /enumerated-capabilities lists known capabilities', async () => {
    for (const api of ['management', 'client'] as const) {
      const res = await ctl.api.get('/enumerated-capabilities', { api });
      assertStatus(res, 200);
      assert.ok(Array.isArray(res.body.data));
      assert.equal(new Set(res.body.data).size, res.body.data.length, 'no duplicates');
    }
  });

  it('GET /specs lists the API specs; /specs/{id} and /specs/{id}/spec return them', async () => {
    for (const [api, id, mustHave] of [
      [
        'management',
        'edge-management',
        ['/identities', '/identities/{id}', '/identities/{id}/disable', '/authenticators'],
      ],
      ['client', 'edge-client', ['/authenticate', '/current-identity', '/current-api-session']],
    ] as const) {
      const list = await ctl.api.get('/specs', { api });
      assertStatus(list, 200);
      const ids = (list.body.data as Array<{ id: string; name: string }>).map((s) => s.id);
      assert.ok(ids.includes(id), `${api} /specs lists ${id}: ${JSON.stringify(ids)}`);

      const one = await ctl.api.get(`/specs/${id}`, { api });
      assertStatus(one, 200);
      assert.equal(one.body.data.id, id);
      assert.equal(typeof one.body.data.name, 'string');

      const body = await ctl.api.get(`/specs/${id}/spec`, { api });
      assertStatus(body, 200);
      // The controller writes the document itself; an envelope with the document as a string is accepted too.
      const doc =
        typeof body.body === 'object' && body.body.paths ? body.body : parseYaml(String(body.body?.data ?? body.text));
      assert.equal(doc.swagger, '2.0');
      assert.equal(doc.basePath, BASE_PATHS[api]);
      for (const p of mustHave) assert.ok(doc.paths?.[p], `the ${id} spec lists ${p}`);
    }
  });

  it('an unknown spec id is 404 NOT_FOUND', async () => {
    assertError(await ctl.api.get('/specs/no-such-spec'), 404, 'NOT_FOUND');
    assertError(await ctl.api.get('/specs/no-such-spec/spec'), 404, 'NOT_FOUND');
  });
});

describe('identity types', () => {
  it('GET /identity-types lists Default and Router (id = name)', async () => {
    const res = await admin.get('/identity-types');
    assertStatus(res, 200);
    const types = (res.body.data as Array<{ id: string; name: string }>).map((t) => [t.id, t.name]).sort();
    assert.deepEqual(types, [
      ['Default', 'Default'],
      ['Router', 'Router'],
    ]);
    assert.equal(res.body.meta.pagination.totalCount, 2);
  });

  it('GET /identity-types/{id}', async () => {
    const res = await admin.get('/identity-types/Default');
    assertStatus(res, 200);
    assert.equal(res.body.data.id, 'Default');
    assert.equal(res.body.data.name, 'Default');
    assertError(await admin.get('/identity-types/User'), 404, 'NOT_FOUND');
  });

  it('needs a session', async () => {
    assertError(await ctl.api.get('/identity-types'), 401, 'UNAUTHORIZED');
  });
});

describe('summary', () => {
  it('GET /summary counts entities, for admins only', async () => {
    const before = await admin.get('/summary');
    assertStatus(before, 200);
    const counts = before.body.data as Record<string, number>;
    assert.ok(counts.identities >= 1, JSON.stringify(counts));
    assert.equal(counts.identityTypes, 2);
    await createIdentity(admin, { name: unique('summary') });
    const after = await admin.get('/summary');
    assert.equal(after.body.data.identities, counts.identities + 1);

    assertError(await ctl.api.get('/summary'), 401, 'UNAUTHORIZED');
    const user = await createUser(admin);
    const userApi = await ctl.api.loginAs(user.username, user.password);
    assertError(await userApi.get('/summary'), 401, 'UNAUTHORIZED');
  });
});

describe('EST CA certificates', () => {
  const targets: Array<[string, 'management' | 'client' | 'root']> = [
    ['management base', 'management'],
    ['client base', 'client'],
    ['server root', 'root'],
  ];
  for (const [label, api] of targets) {
    it(`GET /.well-known/est/cacerts at the ${label}: base64 PKCS#7 holding the CA bundle`, async () => {
      const res = await ctl.api.get('/.well-known/est/cacerts', { api, headers: { accept: '*/*' } });
      assertStatus(res, 200);
      assert.match(String(res.headers['content-type']), /^application\/pkcs7-mime/);
      const text = res.text;
      assert.match(text, /^[A-Za-z0-9+/=\n]+$/, 'base64 text');
      assert.ok(!text.endsWith('\n'), 'no trailing newline');
      for (const line of text.split('\n').slice(0, -1)) assert.equal(line.length, 64, 'wrapped at 64 characters');
      const got = pkcs7CertDers(text)
        .map((d) => d.toString('hex'))
        .sort();
      const want = pemBundleDers(ctl.caPem)
        .map((d) => d.toString('hex'))
        .sort();
      assert.ok(want.length >= 1);
      assert.deepEqual(got, want, 'the store holds exactly the CA bundle');
    });
  }

  it('needs no authentication, and a bad token does not matter', async () => {
    assertStatus(await ctl.api.as('garbage').get('/.well-known/est/cacerts', { headers: { accept: '*/*' } }), 200);
  });
});

describe('CORS', () => {
  it('answers a preflight with 200 and the documented headers', async () => {
    for (const api of ['management', 'client'] as const) {
      const res = await ctl.api.request('OPTIONS', '/identities', {
        api,
        token: null,
        headers: {
          origin: 'https://console.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, zt-session',
        },
      });
      assert.equal(res.status, 200, res.text);
      const h = res.headers;
      assert.ok(
        ['*', 'https://console.example.com'].includes(String(h['access-control-allow-origin'])),
        `allow-origin: ${h['access-control-allow-origin']}`,
      );
      const methods = String(h['access-control-allow-methods'] ?? '').toUpperCase();
      for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'])
        assert.ok(methods.includes(m), `allow-methods has ${m}: ${methods}`);
      const headers = String(h['access-control-allow-headers'] ?? '').toLowerCase();
      for (const x of ['content-type', 'accept', 'authorization', 'zt-session'])
        assert.ok(headers.includes(x), `allow-headers has ${x}: ${headers}`);
      // Credentials only for origins configured with --cors-origin (api-cors.test.ts); this one is not.
      assert.equal(h['access-control-allow-credentials'], undefined);
    }
  });

  it('a cross-origin request gets Access-Control-Allow-Origin', async () => {
    const res = await ctl.api.get('/version', { headers: { origin: 'https://console.example.com' } });
    assertStatus(res, 200);
    assert.ok(res.headers['access-control-allow-origin'], 'allow-origin on the actual response');
  });
});
