// Router enrollment in-process, on both stores: an edge router redeems its erott token with a server CSR and a
// client CSR (made by openssl and by node), a transit router its trott token; every refusal leaves the router as it
// was; re-enrolling takes the router's certificate away. Renewal over mutual TLS is in test/e2e/api-router-enroll.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { verifyEnrollmentJwt } from '../../src/controller/pki/enrollment-jwt.js';
import { routerOfCertificate } from '../../src/controller/model/enrollment/router.js';
import { createTestApp, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const CLIENT = '/edge/client/v1';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-router-enroll-'));
let files = 0;

/** A CSR made by the openssl binary, with the subjectAltName given (if any). */
function opensslCsr(cn: string, opts: { san?: string; key?: string[] } = {}): string {
  const out = path.join(tmp, `${++files}.csr`);
  const key = opts.key ?? ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  const san = opts.san ? ['-addext', `subjectAltName=${opts.san}`] : [];
  execFileSync(
    'openssl',
    [
      'req',
      '-new',
      ...key,
      '-nodes',
      '-keyout',
      path.join(tmp, `${files}.key`),
      '-out',
      out,
      '-subj',
      `/CN=${cn}`,
      ...san,
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(out, 'utf8');
}

const nodeCsr = (cn: string) => createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, cn);
const leafOf = (chain: string) => new X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25));
const sha1 = (cert: X509Certificate) => createHash('sha1').update(cert.raw).digest('hex');

for (const store of storesUnderTest()) {
  describe(`router enrollment (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    async function newRouter(base: '/edge-routers' | '/transit-routers' = '/edge-routers') {
      const res = await t.admin.request('POST', base, {
        json: { name: `r-${Math.random().toString(36).slice(2, 8)}` },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const id = res.body.data.id as string;
      return { id, ...(await detail(id, base)) };
    }

    async function detail(id: string, base = '/edge-routers') {
      const res = await t.admin.request('GET', `${base}/${id}`);
      assert.equal(res.status, 200);
      return res.body.data as {
        isVerified: boolean;
        fingerprint: string;
        certPem?: string | null;
        enrollmentToken: string | null;
        enrollmentJwt: string | null;
        enrollmentExpiresAt: string | null;
      };
    }

    const erott = (json: Record<string, unknown>) => t.anonymous.request('POST', `${CLIENT}/enroll/erott`, { json });

    /** The generic /enroll as OpenZiti's routers call it: method and token in the query, the CSR pair as JSON. */
    const generic = (method: string, token: string, json: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll?method=${method}&token=${token}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(json),
      });

    it('erott: both certificates are from the intermediate CA; the router is verified, its token spent', async () => {
      const router = await newRouter();
      const claims = await verifyEnrollmentJwt(router.enrollmentJwt!, t.app.runtime.pki);
      assert.deepEqual([claims.em, claims.sub, claims.jti], ['erott', router.id, router.enrollmentToken]);
      // A SPIFFE id asked for (it would name an identity) and a directory name are not copied, as in OpenZiti.
      const spiffe = `URI:SPIFFE://${t.app.runtime.pki.trustDomain}/identity/victim`;
      const names =
        'DNS:edge-1.example.com,DNS:localhost,IP:10.1.2.3,IP:::1,' +
        'email:ops@example.com,URI:https://edge-1.example.com/';
      const serverCsr = opensslCsr('edge-1.example.com', { san: `${names},${spiffe},RID:1.2.3.4` });
      const clientCsr = opensslCsr(router.id, { san: `DNS:edge-1.example.com,${spiffe}` });
      const res = await erott({ token: router.enrollmentToken, serverCsr, clientCsr });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const intermediate = new X509Certificate(t.app.runtime.pki.intermediateCertPem);
      const server = leafOf(res.body.data.serverCert);
      const client = leafOf(res.body.data.cert);
      assert.ok(server.verify(intermediate.publicKey) && client.verify(intermediate.publicKey));
      assert.equal(res.body.data.ca, t.app.runtime.pki.caBundlePem);
      // The host names, addresses, e-mail and URI the server CSR asked for, and server authentication.
      assert.equal(
        server.subjectAltName,
        'DNS:edge-1.example.com, DNS:localhost, IP Address:10.1.2.3, ' +
          'IP Address:0:0:0:0:0:0:0:1, email:ops@example.com, URI:https://edge-1.example.com/',
      );
      assert.deepEqual(server.keyUsage, [SERVER_AUTH]);
      assert.deepEqual(client.keyUsage, [CLIENT_AUTH]);
      assert.equal(client.subject, `CN=${router.id}`);
      assert.equal(client.subjectAltName, 'DNS:edge-1.example.com');
      assert.equal(server.ca || client.ca, false);

      const after = await detail(router.id);
      assert.equal(after.isVerified, true);
      assert.equal(after.fingerprint, sha1(client));
      assert.equal(after.certPem, res.body.data.cert);
      assert.deepEqual([after.enrollmentToken, after.enrollmentJwt, after.enrollmentExpiresAt], [null, null, null]);
      // Its row among all routers says the same.
      const mirrored = await detail(router.id, '/routers');
      assert.deepEqual([mirrored.isVerified, mirrored.fingerprint], [true, sha1(client)]);
      assert.equal((await routerOfCertificate(t.app.runtime, client.raw)).row.id, router.id);

      const again = await erott({ token: router.enrollmentToken, serverCsr, clientCsr: nodeCsr(router.id) });
      assert.equal(again.status, 400);
      assert.equal(again.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
    });

    it("erott through the legacy /enroll with the routers' own field names and RSA CSRs made by openssl", async () => {
      const router = await newRouter();
      const rsa = ['-newkey', 'rsa:2048'];
      const res = await generic('erott', router.enrollmentToken!, {
        serverCertCsr: opensslCsr('edge-2', { san: 'DNS:edge-2.internal', key: rsa }),
        certCsr: opensslCsr(router.id, { key: rsa }),
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json().data;
      assert.equal(leafOf(data.serverCert).subjectAltName, 'DNS:edge-2.internal');
      assert.equal(leafOf(data.serverCert).publicKey.asymmetricKeyType, 'rsa');
      assert.equal((await detail(router.id)).fingerprint, sha1(leafOf(data.cert)));
      // Without a method the token says which enrollment it is.
      const other = await newRouter();
      const res2 = await t.app.inject({
        method: 'POST',
        url: `${CLIENT}/enroll?token=${other.enrollmentToken}`,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ serverCertCsr: nodeCsr('edge-3'), certCsr: nodeCsr(other.id) }),
      });
      assert.equal(res2.statusCode, 200, res2.body);
      assert.equal((await detail(other.id)).isVerified, true);
    });

    it('trott: a transit router enrolls the same way and is verified', async () => {
      const router = await newRouter('/transit-routers');
      const claims = await verifyEnrollmentJwt(router.enrollmentJwt!, t.app.runtime.pki);
      assert.equal(claims.em, 'trott');
      const wrong = await erott({
        token: router.enrollmentToken,
        serverCsr: nodeCsr('t'),
        clientCsr: nodeCsr(router.id),
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error.code, 'INVALID_ENROLL_METHOD');
      const res = await generic('trott', router.enrollmentToken!, {
        serverCertCsr: nodeCsr('transit'),
        certCsr: nodeCsr(router.id),
      });
      assert.equal(res.statusCode, 200, res.body);
      const after = await detail(router.id, '/transit-routers');
      assert.deepEqual(
        [after.isVerified, after.fingerprint, after.enrollmentJwt],
        [true, sha1(leafOf(res.json().data.cert)), null],
      );
    });

    it('refuses unknown, expired and bad requests, changing nothing', async () => {
      const router = await newRouter();
      const before = await detail(router.id);
      const good = { token: router.enrollmentToken, serverCsr: nodeCsr('edge'), clientCsr: nodeCsr(router.id) };
      const refused = async (json: Record<string, unknown>, code: string, field?: string) => {
        const res = await erott(json);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, code, JSON.stringify(res.body));
        if (field) assert.equal(res.body.error.cause.field, field);
        assert.deepEqual(await detail(router.id), before, 'nothing changed');
      };
      await refused({ ...good, token: 'a2f1c1b6-0000-4000-8000-000000000000' }, 'INVALID_ENROLLMENT_TOKEN');
      await refused({ ...good, serverCsr: 'not a CSR' }, 'COULD_NOT_PROCESS_CSR', 'serverCsr');
      await refused({ ...good, serverCsr: undefined }, 'COULD_NOT_PROCESS_CSR', 'serverCertCsr');
      await refused({ ...good, clientCsr: nodeCsr('someone-else') }, 'COULD_NOT_PROCESS_CSR', 'clientCsr');
      await refused(
        { ...good, clientCsr: opensslCsr(router.id, { key: ['-newkey', 'rsa:1024'] }) },
        'COULD_NOT_PROCESS_CSR',
        'clientCsr',
      );
      // A CSR whose signature does not match its key: its text tampered with after signing.
      const csr = opensslCsr('edge', { san: 'DNS:a.example.com' });
      const der = Buffer.from(csr.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
      const at = der.indexOf(Buffer.from('a.example.com'));
      der[at] = 'b'.charCodeAt(0);
      const base64 = der.toString('base64').replace(/.{64}/g, '$&\n');
      const forged = `-----BEGIN CERTIFICATE REQUEST-----\n${base64}\n-----END CERTIFICATE REQUEST-----\n`;
      await refused({ ...good, serverCsr: forged }, 'COULD_NOT_PROCESS_CSR', 'serverCsr');
      // Expired: the router's enrollment expiry moved into the past.
      const past = new Date(Date.now() - 60_000).toISOString();
      await t.app.runtime.writes.update(
        'edge-router',
        router.id,
        { enrollmentExpiresAt: past },
        new Date().toISOString(),
      );
      const expired = await detail(router.id);
      const res = await erott(good);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'ENROLLMENT_EXPIRED');
      assert.deepEqual(await detail(router.id), expired);
      const legacy = await generic('erott', router.enrollmentToken!, {
        serverCertCsr: good.serverCsr,
        certCsr: good.clientCsr,
      });
      assert.equal(legacy.json().error.code, 'ENROLLMENT_EXPIRED');
    });

    it('re-enroll: the enrolled certificate no longer identifies the router; a new token re-enrolls it', async () => {
      const router = await newRouter();
      const res = await erott({
        token: router.enrollmentToken,
        serverCsr: nodeCsr('edge'),
        clientCsr: nodeCsr(router.id),
      });
      assert.equal(res.status, 200);
      const old = leafOf(res.body.data.cert);
      assert.equal((await t.admin.request('POST', `/edge-routers/${router.id}/re-enroll`)).status, 200);
      const after = await detail(router.id);
      assert.deepEqual([after.isVerified, after.fingerprint, after.certPem], [false, '', null]);
      assert.ok(after.enrollmentToken && after.enrollmentToken !== router.enrollmentToken);
      await assert.rejects(
        routerOfCertificate(t.app.runtime, old.raw),
        (err: Error & { code?: string }) => err.code === 'UNAUTHORIZED',
      );
      const again = await erott({
        token: after.enrollmentToken,
        serverCsr: nodeCsr('edge'),
        clientCsr: nodeCsr(router.id),
      });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((await detail(router.id)).isVerified, true);
    });

    it('two requests racing with one token: one enrolls the router, the other is refused', async () => {
      const router = await newRouter();
      const attempt = () =>
        erott({ token: router.enrollmentToken, serverCsr: nodeCsr('edge'), clientCsr: nodeCsr(router.id) });
      const results = await Promise.all([attempt(), attempt(), attempt()]);
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, JSON.stringify(results.map((r) => r.status)));
      for (const r of results.filter((x) => x.status !== 200))
        assert.equal(r.body.error.code, 'INVALID_ENROLLMENT_TOKEN');
      assert.equal((await detail(router.id)).fingerprint, sha1(leafOf(ok[0].body.data.cert)));
    });

    it('router renewal needs the client certificate of the TLS connection', async () => {
      const res = await t.anonymous.request('POST', `${CLIENT}/enroll/extend/router`, {
        json: { certCsr: nodeCsr('x'), serverCertCsr: nodeCsr('y') },
      });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      // A certificate this controller did not issue is nobody's.
      const foreign = new X509Certificate(t.app.runtime.pki.caBundlePem);
      await assert.rejects(routerOfCertificate(t.app.runtime, foreign.raw), /not issued by this controller/);
    });
  });
}
