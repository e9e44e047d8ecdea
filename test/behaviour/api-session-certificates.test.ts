// Ephemeral certificates of the current API session: a CSR (one made by openssl too) becomes a 12-hour certificate
// from the intermediate CA whose subject is the identity and whose SPIFFE id names the session; listed with filters,
// read and deleted by that session only; bad CSRs refused with nothing stored; gone with the session; never a login.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveCertificate } from '../../src/controller/model/auth/cert-login.js';
import { createCsr } from '../../src/protocol/csr.js';
import { createTestApp, type Client, type TestApp } from '../helpers/in-process.js';
import { storesUnderTest } from '../helpers/postgres.js';

const BASE = '/edge/client/v1/current-api-session/certificates';
const ecCsr = (cn = 'whatever') => createCsr(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, cn);

function opensslCsr(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-sesscert-'));
  execFileSync(
    'openssl',
    ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', '/CN=from-openssl'],
    { cwd: dir, stdio: 'ignore' },
  );
  return readFileSync(path.join(dir, 'r.csr'), 'utf8');
}

for (const store of storesUnderTest()) {
  describe(`API session certificates (${store})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(store);
    });
    after(async () => t?.close());

    /** A second session of the conformance user, with its token. */
    async function secondSession(): Promise<{ client: Client; token: string; id: string }> {
      const res = await t.anonymous.request('POST', '/edge/client/v1/authenticate', {
        query: 'method=password',
        json: { username: 'conformance-user', password: 'User-password-1' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const token = res.body.data.token as string;
      const client: Client = {
        request: async (method, p, opts = {}) => {
          const r = await t.app.inject({
            method,
            url: `${p}${opts.query ? `?${opts.query}` : ''}`,
            headers: {
              'zt-session': token,
              ...(opts.json === undefined ? {} : { 'content-type': 'application/json' }),
            },
            payload: opts.json === undefined ? undefined : JSON.stringify(opts.json),
          });
          return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : undefined };
        },
      };
      return { client, token, id: res.body.data.id as string };
    }

    it('a CSR becomes a 12-hour certificate of the identity and the session, listed, read and deleted', async () => {
      const me = (await t.user.request('GET', '/edge/client/v1/current-identity')).body.data;
      const session = (await t.user.request('GET', '/edge/client/v1/current-api-session')).body.data;
      const res = await t.user.request('POST', BASE, { json: { csr: opensslCsr() } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const { id, certificate, cas } = res.body.data;
      assert.equal(res.body.data._links.self.href, `./current-api-session/certificates/${id}`);
      const leaf = new X509Certificate(certificate);
      assert.equal(leaf.subject, `CN=${me.id}`, 'the subject is the identity, not what the CSR asked');
      assert.ok(leaf.checkIssued(new X509Certificate(t.app.runtime.pki.intermediateCertPem)));
      assert.ok(leaf.verify(new X509Certificate(t.app.runtime.pki.intermediateCertPem).publicKey));
      const spiffeId = `spiffe://${t.app.runtime.pki.trustDomain}/identity/${me.id}`;
      assert.match(
        leaf.subjectAltName ?? '',
        new RegExp(`URI:${spiffeId}/apiSession/${session.id}/apiSessionCertificate/${id}`),
      );
      const hours = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 3_600_000;
      assert.ok(hours > 11.9 && hours <= 12.1, `valid for ${hours} hours`);
      assert.equal(cas, t.app.runtime.pki.caBundlePem);

      const detail = await t.user.request('GET', `${BASE}/${id}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.data.subject, `CN=${me.id}`);
      assert.equal(detail.body.data.fingerprint.length, 40);
      assert.equal(detail.body.data.validTo, new Date(leaf.validTo).toISOString());
      assert.equal(detail.body.data.apiSessionId, undefined, 'internal');

      const second = await t.user.request('POST', BASE, { json: { csr: ecCsr() } });
      assert.equal(second.status, 201);
      const list = await t.user.request('GET', BASE);
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.map((c: { id: string }) => c.id).sort(), [id, second.body.data.id].sort());
      const filtered = await t.user.request('GET', BASE, {
        query: `filter=${encodeURIComponent(`fingerprint = "${detail.body.data.fingerprint}"`)}`,
      });
      assert.deepEqual(
        filtered.body.data.map((c: { id: string }) => c.id),
        [id],
      );
      const bad = await t.user.request('GET', BASE, { query: `filter=${encodeURIComponent('apiSessionId = "x"')}` });
      assert.equal(bad.status, 400, 'the session link is not a filter symbol');

      assert.equal((await t.user.request('DELETE', `${BASE}/${id}`)).status, 200);
      assert.equal((await t.user.request('GET', `${BASE}/${id}`)).status, 404);
      assert.equal((await t.user.request('DELETE', `${BASE}/${id}`)).status, 404);
      assert.equal((await t.user.request('GET', BASE)).body.data.length, 1);
    });

    it("another session (even the identity's own) sees none of them; they end with their session", async () => {
      const other = await secondSession();
      const made = await other.client.request('POST', BASE, { json: { csr: ecCsr() } });
      assert.equal(made.status, 201);
      const id = made.body.data.id;
      assert.equal((await t.user.request('GET', `${BASE}/${id}`)).status, 404);
      assert.equal((await t.user.request('DELETE', `${BASE}/${id}`)).status, 404);
      assert.ok(!(await t.user.request('GET', BASE)).body.data.some((c: { id: string }) => c.id === id));
      assert.equal((await t.admin.request('GET', `${BASE}/${id}`)).status, 404, "an admin's session has none either");

      // Not a credential: the certificate opens no session.
      const der = new X509Certificate(made.body.data.certificate).raw;
      await assert.rejects(resolveCertificate(t.app.runtime, der, new Date()), /belongs to no identity/);

      assert.equal((await other.client.request('DELETE', '/edge/client/v1/current-api-session')).status, 200);
      assert.equal(
        await t.app.runtime.store.repo('api-session-certificate').find(id),
        undefined,
        'gone with its session',
      );
    });

    it('bad CSRs are refused naming csr, and nothing is stored; no session, no certificate', async () => {
      const before = (await t.user.request('GET', BASE)).body.data.length;
      const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
      const cases: [unknown, string, string][] = [
        [{}, 'COULD_NOT_VALIDATE', 'csr'],
        [{ csr: '' }, 'COULD_NOT_VALIDATE', 'csr'],
        [{ csr: 'not a csr' }, 'COULD_NOT_PROCESS_CSR', 'csr'],
        [{ csr: createCsr(weak, 'weak') }, 'COULD_NOT_PROCESS_CSR', 'csr'],
        [{ csr: 42 }, 'COULD_NOT_VALIDATE', 'csr'],
        [{ csr: ecCsr(), extra: true }, 'COULD_NOT_VALIDATE', 'extra'],
      ];
      for (const [json, code, field] of cases) {
        const res = await t.user.request('POST', BASE, { json });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error.code, code, JSON.stringify(res.body));
        assert.equal(res.body.error.cause.field, field);
      }
      assert.equal((await t.user.request('GET', BASE)).body.data.length, before);
      assert.equal((await t.anonymous.request('POST', BASE, { json: { csr: ecCsr() } })).status, 401);
      assert.equal((await t.anonymous.request('GET', BASE)).status, 401);
    });
  });
}
