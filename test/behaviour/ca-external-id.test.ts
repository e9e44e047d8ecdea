// A CA's externalIdClaim: certificates made by openssl (subject CN, SAN URIs and e-mails) name an identity by its
// externalId through the claim's location, matcher, parser and index; a claim that names nothing falls back to the
// certificate's own authenticator; unverified CAs are trusted for nothing; bad claims are 400s naming the member.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveCertificate } from '../../src/controller/model/auth/cert-login.js';
import { externalIdOf, normalizeExternalIdClaim } from '../../src/controller/pki/external-id.js';
import { opensslCa, opensslSigned } from '../helpers/openssl.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-extid-'));
let serial = 0;

/** A leaf signed by `issuer` with subject `subj` and the given subjectAltName (openssl syntax), as DER. */
function leaf(issuer: { key: string; cert: string }, subj: string, san?: string): Buffer {
  const n = ++serial;
  const ext = path.join(tmp, `${n}.ext`);
  writeFileSync(
    ext,
    `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=clientAuth\n${san ? `subjectAltName=${san}\n` : ''}`,
  );
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: tmp, stdio: ['ignore', 'pipe', 'ignore'] });
  run(
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${n}.key`,
    '-out',
    `${n}.csr`,
    '-subj',
    subj,
  );
  run(
    'x509',
    '-req',
    '-in',
    `${n}.csr`,
    '-CA',
    issuer.cert,
    '-CAkey',
    issuer.key,
    '-CAcreateserial',
    '-out',
    `${n}.crt`,
    '-days',
    '1',
    '-extfile',
    ext,
  );
  return new X509Certificate(readFileSync(path.join(tmp, `${n}.crt`))).raw;
}

const claim = (c: Record<string, unknown>) =>
  normalizeExternalIdClaim({ matcherCriteria: null, parserCriteria: null, index: 0, ...c })!;

describe('externalIdOf (certificates made by openssl)', () => {
  const ca = opensslCa('extid-unit-ca');
  const cert = leaf(
    ca,
    '/O=acme/CN=user:alice',
    'URI:spiffe://acme.example/user/alice,URI:https://idp.example/u/42,' +
      'email:alice@acme.example,email:a.l@other.example',
  );

  it('COMMON_NAME with ALL, PREFIX, SUFFIX and SPLIT', () => {
    assert.equal(externalIdOf(claim({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE' }), cert), 'user:alice');
    assert.equal(
      externalIdOf(
        claim({ location: 'COMMON_NAME', matcher: 'PREFIX', matcherCriteria: 'user:', parser: 'NONE' }),
        cert,
      ),
      'alice',
    );
    assert.equal(
      externalIdOf(
        claim({ location: 'COMMON_NAME', matcher: 'PREFIX', matcherCriteria: 'admin:', parser: 'NONE' }),
        cert,
      ),
      undefined,
    );
    assert.equal(
      externalIdOf(claim({ location: 'COMMON_NAME', matcher: 'SUFFIX', matcherCriteria: 'ice', parser: 'NONE' }), cert),
      'user:al',
    );
    assert.equal(
      externalIdOf(
        claim({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'SPLIT', parserCriteria: ':', index: 1 }),
        cert,
      ),
      'alice',
    );
    assert.equal(
      externalIdOf(
        claim({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'SPLIT', parserCriteria: ':', index: 2 }),
        cert,
      ),
      undefined,
    );
  });

  it('SAN_URI with ALL and SCHEME; SAN_EMAIL with SUFFIX and SPLIT; the index runs over every claim', () => {
    assert.equal(
      externalIdOf(claim({ location: 'SAN_URI', matcher: 'ALL', parser: 'NONE' }), cert),
      'spiffe://acme.example/user/alice',
    );
    assert.equal(
      externalIdOf(claim({ location: 'SAN_URI', matcher: 'ALL', parser: 'NONE', index: 1 }), cert),
      'https://idp.example/u/42',
    );
    assert.equal(
      externalIdOf(claim({ location: 'SAN_URI', matcher: 'SCHEME', matcherCriteria: 'https', parser: 'NONE' }), cert),
      'https://idp.example/u/42',
    );
    assert.equal(
      externalIdOf(
        claim({
          location: 'SAN_URI',
          matcher: 'SCHEME',
          matcherCriteria: 'spiffe',
          parser: 'SPLIT',
          parserCriteria: '/',
          index: 4,
        }),
        cert,
      ),
      'alice',
    );
    assert.equal(
      externalIdOf(
        claim({ location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@acme.example', parser: 'NONE' }),
        cert,
      ),
      'alice',
    );
    assert.equal(
      externalIdOf(
        claim({ location: 'SAN_EMAIL', matcher: 'ALL', parser: 'SPLIT', parserCriteria: '@', index: 2 }),
        cert,
      ),
      'a.l',
    );
    const bare = leaf(ca, '/CN=bare');
    assert.equal(externalIdOf(claim({ location: 'SAN_EMAIL', matcher: 'ALL', parser: 'NONE' }), bare), undefined);
    assert.equal(externalIdOf(claim({ location: 'SAN_URI', matcher: 'ALL', parser: 'NONE' }), bare), undefined);
  });

  it('claims are checked whole, naming the member; criteria and index are completed', () => {
    const refused = (c: unknown, member: string) =>
      assert.throws(
        () => normalizeExternalIdClaim(c),
        (err: { code?: string; cause?: { field?: string } }) =>
          err.code === 'COULD_NOT_VALIDATE' && err.cause?.field === `externalIdClaim.${member}`,
      );
    refused({ location: 'SUBJECT', matcher: 'ALL', parser: 'NONE' }, 'location');
    refused({ location: 'SAN_URI', matcher: 'PREFIX', matcherCriteria: 'x', parser: 'NONE' }, 'matcher');
    refused({ location: 'COMMON_NAME', matcher: 'SCHEME', matcherCriteria: 'x', parser: 'NONE' }, 'matcher');
    refused({ location: 'COMMON_NAME', matcher: 'PREFIX', parser: 'NONE' }, 'matcherCriteria');
    refused({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'SPLIT' }, 'parserCriteria');
    refused({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE', index: -1 }, 'index');
    refused({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE', extra: 1 }, 'extra');
    assert.deepEqual(normalizeExternalIdClaim({ location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE' }), {
      location: 'COMMON_NAME',
      matcher: 'ALL',
      matcherCriteria: null,
      parser: 'NONE',
      parserCriteria: null,
      index: 0,
    });
    assert.equal(normalizeExternalIdClaim(null), null);
  });
});

for (const store of storesUnderTest()) {
  describe(`certificate login by a CA's externalIdClaim (${store})`, () => {
    let t: TestApp;
    let adminToken = '';
    before(async () => {
      t = await createTestApp(store);
      adminToken = (await t.admin.request('GET', '/current-api-session')).body.data.token;
    });
    after(async () => t?.close());

    /** An openssl CA registered (and, unless told otherwise, verified) with the given claim. */
    async function registeredCa(name: string, externalIdClaim: unknown, verified = true) {
      const files = opensslCa(name);
      const res = await t.admin.request('POST', '/cas', {
        json: {
          name,
          certPem: files.pem,
          isAutoCaEnrollmentEnabled: false,
          isOttCaEnrollmentEnabled: false,
          isAuthEnabled: true,
          identityRoles: [],
          externalIdClaim,
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const id = res.body.data.id as string;
      if (verified) {
        const token = (await t.admin.request('GET', `/cas/${id}`)).body.data.verificationToken;
        const v = await t.app.inject({
          method: 'POST',
          url: `/edge/management/v1/cas/${id}/verify`,
          headers: { 'content-type': 'text/plain', 'zt-session': adminToken },
          payload: opensslSigned(files, token, `${name}-verify`),
        });
        assert.equal(v.statusCode, 200, v.body);
      }
      return { id, files };
    }

    async function identity(externalId: string | null) {
      const res = await t.admin.request('POST', '/identities', {
        json: { name: `ext-${++serial}`, type: 'Device', isAdmin: false, externalId },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    }

    it('the claim is stored complete, shown, patched whole and cleared with null', async () => {
      const { id } = await registeredCa(
        'claim-shown',
        { location: 'SAN_EMAIL', matcher: 'SUFFIX', matcherCriteria: '@corp', parser: 'NONE' },
        false,
      );
      const shown = (await t.admin.request('GET', `/cas/${id}`)).body.data.externalIdClaim;
      assert.deepEqual(shown, {
        location: 'SAN_EMAIL',
        matcher: 'SUFFIX',
        matcherCriteria: '@corp',
        parser: 'NONE',
        parserCriteria: null,
        index: 0,
      });
      const bad = await t.admin.request('PATCH', `/cas/${id}`, {
        json: { externalIdClaim: { location: 'SAN_URI', matcher: 'SUFFIX', matcherCriteria: 'x', parser: 'NONE' } },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.cause.field, 'externalIdClaim.matcher');
      assert.deepEqual(
        (await t.admin.request('GET', `/cas/${id}`)).body.data.externalIdClaim,
        shown,
        'a refused patch changes nothing',
      );
      const patched = await t.admin.request('PATCH', `/cas/${id}`, {
        json: { externalIdClaim: { location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE' } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal((await t.admin.request('GET', `/cas/${id}`)).body.data.externalIdClaim.location, 'COMMON_NAME');
      assert.equal((await t.admin.request('PATCH', `/cas/${id}`, { json: { externalIdClaim: null } })).status, 200);
      assert.equal((await t.admin.request('GET', `/cas/${id}`)).body.data.externalIdClaim, undefined);
      const badCreate = await t.admin.request('POST', '/cas', {
        json: {
          name: 'bad-claim',
          certPem: opensslCa('bad-claim').pem,
          isAutoCaEnrollmentEnabled: false,
          isOttCaEnrollmentEnabled: false,
          isAuthEnabled: true,
          identityRoles: [],
          externalIdClaim: { location: 'COMMON_NAME', matcher: 'ALL', parser: 'SPLIT' },
        },
      });
      assert.equal(badCreate.status, 400);
      assert.equal(badCreate.body.error.cause.field, 'externalIdClaim.parserCriteria');
      assert.equal((await t.admin.request('GET', '/cas', { query: 'filter=name="bad-claim"' })).body.data.length, 0);
    });

    it('a certificate of a verified CA logs in the identity its claim names, which has no authenticator', async () => {
      const { files } = await registeredCa('claim-login', {
        location: 'SAN_URI',
        matcher: 'SCHEME',
        matcherCriteria: 'urn',
        parser: 'SPLIT',
        parserCriteria: ':',
        index: 2,
      });
      const alice = await identity('emp-1001');
      const cert = leaf(files, '/CN=anything', 'URI:urn:employee:emp-1001');
      const found = await resolveCertificate(t.app.runtime, cert, new Date());
      assert.equal(found.subject.identity.id, alice);
      assert.equal(found.authenticator.identityId, alice);
      // Nobody has the id a certificate names: refused, even though the CA is trusted.
      await assert.rejects(
        resolveCertificate(t.app.runtime, leaf(files, '/CN=x', 'URI:urn:employee:emp-9999'), new Date()),
        /no identity has the externalId/,
      );
      // A certificate the claim names nothing in: looked up by fingerprint, and it has no authenticator.
      await assert.rejects(
        resolveCertificate(t.app.runtime, leaf(files, '/CN=x', 'URI:https://elsewhere'), new Date()),
        /belongs to no identity/,
      );
      // A disabled identity is refused however it was found.
      assert.equal(
        (await t.admin.request('POST', `/identities/${alice}/disable`, { json: { durationMinutes: 0 } })).status,
        200,
      );
      await assert.rejects(resolveCertificate(t.app.runtime, cert, new Date()), /disabled/);
    });

    it('an unverified CA, or one that does not allow authentication, is trusted for nothing', async () => {
      const { id, files } = await registeredCa(
        'claim-unverified',
        { location: 'COMMON_NAME', matcher: 'ALL', parser: 'NONE' },
        false,
      );
      await identity('cn-bob');
      const cert = leaf(files, '/CN=cn-bob');
      await assert.rejects(
        resolveCertificate(t.app.runtime, cert, new Date()),
        /neither by this controller nor by a verified CA/,
      );
      const { id: id2, files: files2 } = await registeredCa('claim-noauth', {
        location: 'COMMON_NAME',
        matcher: 'ALL',
        parser: 'NONE',
      });
      assert.equal((await t.admin.request('PATCH', `/cas/${id2}`, { json: { isAuthEnabled: false } })).status, 200);
      await assert.rejects(
        resolveCertificate(t.app.runtime, leaf(files2, '/CN=cn-bob'), new Date()),
        /neither by this controller nor by a verified CA/,
      );
      assert.equal((await t.admin.request('GET', `/cas/${id}`)).body.data.isVerified, false);
    });
  });
}
