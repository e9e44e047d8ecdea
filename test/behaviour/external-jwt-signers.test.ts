// External JWT signers: the management rules (exactly one of certPem or jwksEndpoint, kid with certPem, a real
// certificate whose facts are derived, unique name and issuer, https key sets), admin-only management, and the
// client API's anonymous list (enabled signers, only the fields a login page needs).
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { opensslCa } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const CLIENT = '/edge/client/v1';
const CLIENT_KEYS = [
  '_links',
  'audience',
  'clientId',
  'createdAt',
  'enrollToCertEnabled',
  'enrollToTokenEnabled',
  'externalAuthUrl',
  'id',
  'name',
  'scopes',
  'tags',
  'targetToken',
  'updatedAt',
];

for (const store of storesUnderTest()) {
  describe(`external JWT signers (${store})`, () => {
    let t: TestApp;
    const idp = opensslCa('signer-idp', { isCa: false });
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    let n = 0;
    const base = () => {
      n += 1;
      return { name: `signer-${n}`, enabled: true, issuer: `https://idp-${n}.example`, audience: 'ctl' };
    };
    const create = (body: Record<string, unknown>) => t.admin.request('POST', '/external-jwt-signers', { json: body });
    const causeField = (res: { body: any }) => res.body.error?.cause?.field;

    it('a certPem signer gets the certificate facts derived; the detail validates', async () => {
      const res = await create({
        ...base(),
        certPem: idp.pem,
        kid: 'key-1',
        externalAuthUrl: 'https://idp.example/auth',
        clientId: 'ctl-cli',
        scopes: ['openid'],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const d = (await t.admin.request('GET', `/external-jwt-signers/${res.body.data.id}`)).body.data;
      const cert = new X509Certificate(idp.pem);
      assert.equal(d.fingerprint, createHash('sha1').update(cert.raw).digest('hex'));
      assert.equal(d.commonName, 'signer-idp');
      assert.equal(d.notBefore, new Date(cert.validFrom).toISOString());
      assert.equal(d.notAfter, new Date(cert.validTo).toISOString());
      assert.equal(d.certPem, idp.pem);
      assert.equal(d.jwksEndpoint, null);
      assert.equal(d.kid, 'key-1');
      assert.equal(d.claimsProperty, 'sub');
      assert.equal(d.useExternalId, false);
      assert.equal(d.targetToken, 'ACCESS');
    });

    it('a jwksEndpoint signer: no certificate facts; http only to localhost', async () => {
      const res = await create({ ...base(), jwksEndpoint: 'https://idp.example/.well-known/jwks.json' });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const d = (await t.admin.request('GET', `/external-jwt-signers/${res.body.data.id}`)).body.data;
      assert.equal(d.certPem, null);
      assert.equal(d.fingerprint, '');
      assert.equal(d.jwksEndpoint, 'https://idp.example/.well-known/jwks.json');
      assert.equal(d.notAfter, '0001-01-01T00:00:00.000Z');
      // Forms send "" for the mode not chosen: none.
      const form = await create({ ...base(), certPem: '', kid: '', jwksEndpoint: 'https://idp.example/jwks' });
      assert.equal(form.status, 201, JSON.stringify(form.body));
      const plain = await create({ ...base(), jwksEndpoint: 'http://idp.example/jwks' });
      assert.equal(plain.status, 400);
      assert.equal(causeField(plain), 'jwksEndpoint');
      assert.equal((await create({ ...base(), jwksEndpoint: 'http://127.0.0.1:8080/jwks' })).status, 201);
      const notUrl = await create({ ...base(), jwksEndpoint: 'not a url' });
      assert.equal(notUrl.status, 400);
      assert.equal(causeField(notUrl), 'jwksEndpoint');
    });

    it('exactly one of certPem or jwksEndpoint; kid with certPem; the PEM must be a certificate', async () => {
      const neither = await create(base());
      assert.equal(neither.status, 400);
      assert.equal(causeField(neither), 'certPem');
      assert.match(neither.body.error.cause.reason, /jwksEndpoint or certPem is required/);
      const both = await create({ ...base(), certPem: idp.pem, kid: 'k', jwksEndpoint: 'https://idp.example/jwks' });
      assert.equal(both.status, 400);
      assert.equal(causeField(both), 'jwksEndpoint');
      const noKid = await create({ ...base(), certPem: idp.pem });
      assert.equal(noKid.status, 400);
      assert.equal(causeField(noKid), 'kid');
      const key = await create({
        ...base(),
        certPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
        kid: 'k',
      });
      assert.equal(key.status, 400);
      assert.equal(causeField(key), 'certPem');
      const garbage = await create({
        ...base(),
        certPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        kid: 'k',
      });
      assert.equal(garbage.status, 400);
      assert.equal(causeField(garbage), 'certPem');
      const control = await create({ ...base(), certPem: `${idp.pem}\u001b[31m`, kid: 'k' });
      assert.equal(control.status, 400);
      assert.equal(causeField(control), 'certPem');
      // Nothing of the refused bodies was written.
      const names = (await t.admin.request('GET', '/external-jwt-signers', { query: 'limit=100' })).body.data.map(
        (s: any) => s.name,
      );
      assert.equal(new Set(names).size, names.length);
      assert.equal(names.length, 4);
    });

    it('name and issuer are unique', async () => {
      const first = base();
      assert.equal((await create({ ...first, jwksEndpoint: 'https://a.example/jwks' })).status, 201);
      const sameName = await create({ ...base(), name: first.name, jwksEndpoint: 'https://a.example/jwks' });
      assert.equal(sameName.status, 400);
      assert.equal(causeField(sameName), 'name');
      const sameIssuer = await create({ ...base(), issuer: first.issuer, jwksEndpoint: 'https://a.example/jwks' });
      assert.equal(sameIssuer.status, 400);
      assert.equal(causeField(sameIssuer), 'issuer');
    });

    it('patch and replace keep the rules on the entity as it will be', async () => {
      const id = (await create({ ...base(), certPem: idp.pem, kid: 'key-1' })).body.data.id;
      const path = `/external-jwt-signers/${id}`;
      const both = await t.admin.request('PATCH', path, { json: { jwksEndpoint: 'https://idp.example/jwks' } });
      assert.equal(both.status, 400);
      assert.equal(causeField(both), 'jwksEndpoint');
      const noKid = await t.admin.request('PATCH', path, { json: { kid: null } });
      assert.equal(noKid.status, 400);
      assert.equal(causeField(noKid), 'kid');
      // Switching to a key set clears the certificate and its facts.
      const swap = await t.admin.request('PATCH', path, {
        json: { certPem: null, jwksEndpoint: 'https://idp.example/jwks' },
      });
      assert.equal(swap.status, 200, JSON.stringify(swap.body));
      let d = (await t.admin.request('GET', path)).body.data;
      assert.equal(d.certPem, null);
      assert.equal(d.fingerprint, '');
      assert.equal(d.commonName, '');
      // A replace that leaves out both is refused; one with the certificate brings its facts back.
      const { name, issuer } = d;
      const bare = await t.admin.request('PUT', path, { json: { name, issuer, enabled: false, audience: null } });
      assert.equal(bare.status, 400);
      assert.equal(causeField(bare), 'certPem');
      const back = await t.admin.request('PUT', path, {
        json: { name, issuer, enabled: false, audience: null, certPem: idp.pem, kid: 'key-2' },
      });
      assert.equal(back.status, 200, JSON.stringify(back.body));
      d = (await t.admin.request('GET', path)).body.data;
      assert.equal(d.commonName, 'signer-idp');
      assert.equal(d.kid, 'key-2');
      assert.equal(d.jwksEndpoint, null);
      assert.equal(d.enabled, false);
      // A form sending the read model back (a key-set signer's blank certificate facts included) changes nothing.
      const jwksId = (await create({ ...base(), jwksEndpoint: 'https://idp.example/jwks' })).body.data.id;
      const {
        id: _id,
        createdAt: _c,
        updatedAt: _u,
        _links: _l,
        ...echo
      } = (await t.admin.request('GET', `/external-jwt-signers/${jwksId}`)).body.data;
      const echoed = await t.admin.request('PUT', `/external-jwt-signers/${jwksId}`, {
        json: { ...echo, enabled: false },
      });
      assert.equal(echoed.status, 200, JSON.stringify(echoed.body));
      assert.equal((await t.admin.request('GET', `/external-jwt-signers/${jwksId}`)).body.data.enabled, false);
      const readOnly = await t.admin.request('PATCH', path, { json: { fingerprint: 'ab' } });
      assert.equal(readOnly.status, 400);
      assert.equal(causeField(readOnly), 'fingerprint');
    });

    it('management needs an admin', async () => {
      assert.equal((await t.anonymous.request('GET', '/external-jwt-signers')).status, 401);
      assert.notEqual((await t.user.request('GET', '/external-jwt-signers')).status, 200);
      const denied = await t.user.request('POST', '/external-jwt-signers', {
        json: { ...base(), jwksEndpoint: 'https://a.example/jwks' },
      });
      assert.ok(denied.status === 401 || denied.status === 403, String(denied.status));
    });

    it('the client list: anonymous, enabled signers only, only the login-page fields, paged', async () => {
      const on = await create({
        ...base(),
        name: 'zz-on',
        certPem: idp.pem,
        kid: 'secret-kid',
        externalAuthUrl: 'https://idp.example/auth',
        clientId: 'cli',
        scopes: ['openid', 'email'],
      });
      const off = await create({
        ...base(),
        name: 'zz-off',
        enabled: false,
        jwksEndpoint: 'https://idp.example/jwks',
        externalAuthUrl: 'https://idp.example/auth',
      });
      assert.equal(on.status, 201);
      assert.equal(off.status, 201);
      // As OpenZiti's console asks on its login page.
      const res = await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`, {
        query: 'limit=100&offset=0&sort=name%20asc',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const names = res.body.data.map((s: any) => s.name);
      assert.ok(names.includes('zz-on'));
      assert.ok(!names.includes('zz-off'));
      assert.deepEqual(names, [...names].sort());
      const shown = res.body.data.find((s: any) => s.name === 'zz-on');
      assert.deepEqual(Object.keys(shown).sort(), CLIENT_KEYS);
      assert.equal(shown.externalAuthUrl, 'https://idp.example/auth');
      assert.deepEqual(shown.scopes, ['openid', 'email']);
      assert.equal(res.body.meta.pagination.totalCount, names.length);
      const page = await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`, { query: 'limit=1&offset=0' });
      assert.equal(page.body.data.length, 1);
      assert.equal(page.body.meta.pagination.totalCount, names.length);
      // Filters may not probe what is not shown.
      const probe = await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`, {
        query: `filter=${encodeURIComponent('kid = "secret-kid"')}`,
      });
      assert.equal(probe.status, 400);
      const byName = await t.anonymous.request('GET', `${CLIENT}/external-jwt-signers`, {
        query: `filter=${encodeURIComponent('name = "zz-on"')}`,
      });
      assert.deepEqual(
        byName.body.data.map((s: any) => s.name),
        ['zz-on'],
      );
    });
  });
}
