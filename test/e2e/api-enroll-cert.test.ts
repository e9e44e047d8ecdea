// Enrollment and certificate authentication against the real HTTPS controller: an identity enrolls with a CSR
// (made here, and made by openssl), then logs in with its certificate over mutual TLS on both APIs (with node and
// with curl). Certificates the controller did not issue, or no longer knows, are refused. Every response is
// checked against OpenZiti's spec.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { acceptCsr, issueClientCert } from '../../src/controller/pki/issue.js';
import {
  assertError,
  assertStatus,
  createIdentity,
  useTestController,
  unique,
  type HttpHelper,
  type TestController,
} from '../helpers/controller.js';
import { sharedTestPki } from '../helpers/fixtures.js';
import { mtlsRequest, type ClientCredential } from '../helpers/mtls.js';
import { validateResponse } from '../helpers/spec.js';

const execFileAsync = promisify(execFile);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-e2e-cert-'));
const file = (name: string, text: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
};

describe('enrollment and certificate authentication (HTTPS)', () => {
  const env = useTestController();
  let ctl: TestController;
  let admin: HttpHelper;
  before(() => ({ ctl, admin } = env));

  async function ottToken(name: string): Promise<{ id: string; token: string }> {
    const id = await createIdentity(admin, { name, enrollment: { ott: true } });
    const detail = await admin.get(`/identities/${id}`);
    return { id, token: detail.body.data.enrollment.ott.token };
  }

  /** Enrolls a new identity with an EC key made here; returns its id and credential. */
  async function enrolled(
    name = unique('cert-id'),
  ): Promise<{ id: string; name: string; credential: ClientCredential }> {
    const { id, token } = await ottToken(name);
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const res = await ctl.api.post('/enroll/ott', { token, clientCsr: createCsr(key, name) }, { api: 'client' });
    assertStatus(res, 200, 'enroll');
    return {
      id,
      name,
      credential: { cert: res.body.data.cert, key: key.export({ type: 'pkcs8', format: 'pem' }) as string },
    };
  }

  it('an enrolled identity logs in with its certificate on both APIs, and the session works', async () => {
    const { name, credential } = await enrolled();
    for (const api of ['client', 'management'] as const) {
      const res = await mtlsRequest(
        { baseUrl: ctl.url, caPem: ctl.caPem },
        credential,
        'POST',
        '/authenticate?method=cert',
        { api },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['zt-session'], res.body.data.token);
      const me = await ctl.api.as(res.body.data.token).get('/current-identity', { api });
      assertStatus(me, 200);
      assert.equal(me.body.data.name, name);
      assert.equal(me.body.data.authenticators.cert.id, res.body.data.authenticatorId);
    }
  });

  it('openssl makes the key and CSR, the legacy /enroll takes the PEM, curl logs in with the certificate', async () => {
    const name = unique('openssl-id');
    const { token } = await ottToken(name);
    const keyFile = path.join(tmp, `${name}.key`);
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keyFile], {
      stdio: 'ignore',
    });
    const csr = execFileSync('openssl', ['req', '-new', '-key', keyFile, '-subj', `/CN=${name}`], { encoding: 'utf8' });
    const res = await ctl.api.request('POST', '/enroll', {
      api: 'client',
      query: { method: 'ott', token },
      body: csr,
      headers: { 'content-type': 'application/x-pem-file' },
    });
    assertStatus(res, 200, 'legacy enroll');
    const certFile = file(`${name}.crt`, res.body.data.cert);
    // Asynchronously: the controller answering it runs in this process.
    const { stdout: out } = await execFileAsync('curl', [
      '-sS',
      '--cacert',
      ctl.caFile,
      '--cert',
      certFile,
      '--key',
      keyFile,
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '-d',
      '{}',
      `${ctl.url}/edge/management/v1/authenticate?method=cert`,
      '-w',
      '\n%{http_code}',
    ]);
    const [bodyText, code] = [out.slice(0, out.lastIndexOf('\n')), out.slice(out.lastIndexOf('\n') + 1)];
    assert.equal(code, '200', bodyText);
    const body = JSON.parse(bodyText);
    validateResponse('management', 'POST', '/authenticate?method=cert', 200, body);
    assert.equal(body.data.identity.name, name);
  });

  it("refused (401): no certificate, another CA's, ours nobody has, ours whose authenticator is gone", async () => {
    const target = { baseUrl: ctl.url, caPem: ctl.caPem };
    const none = await mtlsRequest(target, undefined, 'POST', '/authenticate?method=cert');
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'INVALID_AUTH');

    // Self-signed by openssl, with a key of its own: the TLS handshake succeeds, the controller does not trust it.
    const keyFile = path.join(tmp, 'stranger.key');
    const certFile = path.join(tmp, 'stranger.crt');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-subj',
        '/CN=stranger',
        '-days',
        '1',
      ],
      { stdio: 'ignore' },
    );
    const { readFileSync } = await import('node:fs');
    const stranger = await mtlsRequest(
      target,
      { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') },
      'POST',
      '/authenticate?method=cert',
    );
    assert.equal(stranger.status, 401);
    assert.match(stranger.body.error.message, /issued neither by this controller nor by a verified CA/);

    // Issued by the controller's own intermediate (the test PKI is shared), but never enrolled.
    const pki = await loadOrCreatePki(await sharedTestPki(), { hosts: ['127.0.0.1'] });
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const orphan = issueClientCert(pki, acceptCsr(createCsr(key, 'orphan')), { uris: [], now: new Date() });
    const orphanRes = await mtlsRequest(
      target,
      { cert: orphan.chainPem, key: key.export({ type: 'pkcs8', format: 'pem' }) as string },
      'POST',
      '/authenticate?method=cert',
    );
    assert.equal(orphanRes.status, 401);
    assert.match(orphanRes.body.error.message, /belongs to no identity/);

    const { id, credential } = await enrolled();
    const auth = (await admin.get(`/identities/${id}`)).body.data.authenticators.cert.id;
    assertStatus(await admin.delete(`/authenticators/${auth}`), 200);
    const gone = await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert');
    assert.equal(gone.status, 401);
  });

  it('a disabled identity cannot log in with its certificate until enabled', async () => {
    const target = { baseUrl: ctl.url, caPem: ctl.caPem };
    const { id, credential } = await enrolled();
    assertStatus(await admin.post(`/identities/${id}/disable`, { durationMinutes: 0 }), 200);
    assert.equal((await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert')).status, 401);
    assertStatus(await admin.post(`/identities/${id}/enable`, {}), 200);
    assert.equal((await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert')).status, 200);
  });

  it('certificate extension: the old one works until the new one is verified, then only the new one', async () => {
    const target = { baseUrl: ctl.url, caPem: ctl.caPem };
    const { id, credential } = await enrolled();
    const login = await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert');
    const session = ctl.api.as(login.body.data.token).on('client');
    const authId = login.body.data.authenticatorId as string;
    const newKey = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
    const weak = createCsr(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, 'weak');
    assertError(
      await session.post(`/current-identity/authenticators/${authId}/extend`, { clientCertCsr: weak }),
      400,
      'COULD_NOT_PROCESS_CSR',
    );
    const extended = await session.post(`/current-identity/authenticators/${authId}/extend`, {
      clientCertCsr: createCsr(newKey, 'renewed'),
    });
    assertStatus(extended, 200, 'extend');
    assert.equal(extended.body.data.ca, ctl.caPem);
    const renewed = {
      cert: extended.body.data.clientCert as string,
      key: newKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    };
    assert.equal(
      (await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert')).status,
      200,
      'the old certificate still works',
    );
    assert.equal(
      (await mtlsRequest(target, renewed, 'POST', '/authenticate?method=cert')).status,
      401,
      'the new one not yet',
    );
    assertError(
      await session.post(`/current-identity/authenticators/${authId}/extend-verify`, { clientCert: credential.cert }),
      400,
      'INVALID_CLIENT_CERT',
    );
    assertStatus(
      await session.post(`/current-identity/authenticators/${authId}/extend-verify`, { clientCert: renewed.cert }),
      200,
      'extend-verify',
    );
    assert.equal(
      (await mtlsRequest(target, renewed, 'POST', '/authenticate?method=cert')).status,
      200,
      'the new certificate works',
    );
    assert.equal(
      (await mtlsRequest(target, credential, 'POST', '/authenticate?method=cert')).status,
      401,
      'the old one no longer',
    );
    assert.equal((await admin.get(`/identities/${id}`)).body.data.authenticators.cert.id, authId);
    // Someone else's authenticator is not found.
    const other = await enrolled();
    const otherAuth = (await admin.get(`/identities/${other.id}`)).body.data.authenticators.cert.id;
    assertError(
      await session.post(`/current-identity/authenticators/${otherAuth}/extend`, {
        clientCertCsr: createCsr(newKey, 'x'),
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('redemption errors over HTTPS match the spec: a weak CSR, a reused and an unknown token', async () => {
    const { token } = await ottToken(unique('errs'));
    const weak = createCsr(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey, 'weak');
    assertError(
      await ctl.api.post('/enroll/ott', { token, clientCsr: weak }, { api: 'client' }),
      400,
      'COULD_NOT_PROCESS_CSR',
      'clientCsr',
    );
    const good = createCsr(generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey, 'p384');
    assertStatus(await ctl.api.post('/enroll/ott', { token, clientCsr: good }, { api: 'client' }), 200);
    assertError(
      await ctl.api.post('/enroll/ott', { token, clientCsr: good }, { api: 'client' }),
      400,
      'INVALID_ENROLLMENT_TOKEN',
    );
    assertError(
      await ctl.api.post(
        '/enroll/updb',
        { password: 'whatever1' },
        { api: 'client', query: { token: '00000000-0000-4000-8000-000000000000' } },
      ),
      400,
      'INVALID_ENROLLMENT_TOKEN',
    );
  });
});
