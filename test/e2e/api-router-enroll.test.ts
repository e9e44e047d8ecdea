// Router enrollment and renewal against the real HTTPS controller: an edge router enrolls with its CSR pair, then
// renews both certificates over mutual TLS with its client certificate (with node, and with curl and openssl-made
// keys); the certificate it renewed from, and one taken away by re-enroll, no longer renew anything.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import { createCsr } from '../../src/protocol/csr.js';
import {
  assertStatus,
  useTestController,
  unique,
  type HttpHelper,
  type TestController,
} from '../helpers/controller.js';
import { mtlsRequest, type ClientCredential } from '../helpers/mtls.js';
import { validateResponse } from '../helpers/spec.js';

const execFileAsync = promisify(execFile);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-e2e-router-'));
const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
const pkcs8 = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string;
const leafOf = (chain: string) => new X509Certificate(chain.slice(0, chain.indexOf('-----END CERTIFICATE-----') + 25));
const sha1 = (chain: string) => createHash('sha1').update(leafOf(chain).raw).digest('hex');

describe('router enrollment and renewal (HTTPS)', () => {
  const env = useTestController();
  let ctl: TestController;
  let admin: HttpHelper;
  before(() => ({ ctl, admin } = env));

  /** A new edge router, enrolled with a key made here: its id and client credential. */
  async function enrolledRouter(): Promise<{ id: string; credential: ClientCredential }> {
    const created = await admin.post('/edge-routers', { name: unique('router') });
    assertStatus(created, 201, 'create router');
    const id = created.body.data.id as string;
    const token = (await admin.get(`/edge-routers/${id}`)).body.data.enrollmentToken as string;
    const key = ecKey();
    const res = await ctl.api.post(
      '/enroll/erott',
      { token, serverCsr: createCsr(ecKey(), 'edge'), clientCsr: createCsr(key, id) },
      { api: 'client' },
    );
    assertStatus(res, 200, 'erott');
    return { id, credential: { cert: res.body.data.cert, key: pkcs8(key) } };
  }

  const extend = (credential: ClientCredential | undefined, json: Record<string, unknown>) =>
    mtlsRequest({ baseUrl: ctl.url, caPem: ctl.caPem }, credential, 'POST', '/enroll/extend/router', { json });

  it('renews both certificates with the current client certificate; the old one stops renewing at once', async () => {
    const { id, credential } = await enrolledRouter();
    const newKey = ecKey();
    const res = await extend(credential, { certCsr: createCsr(newKey, id), serverCertCsr: createCsr(ecKey(), 'edge') });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.cert && res.body.data.serverCert && res.body.data.ca);
    const detail = (await admin.get(`/edge-routers/${id}`)).body.data;
    assert.equal(detail.fingerprint, sha1(res.body.data.cert));
    assert.notEqual(detail.fingerprint, sha1(credential.cert));
    assert.equal(detail.certPem, res.body.data.cert);

    const stale = await extend(credential, {
      certCsr: createCsr(ecKey(), id),
      serverCertCsr: createCsr(ecKey(), 'edge'),
    });
    assert.equal(stale.status, 401, stale.text);
    assert.equal(stale.body.error.code, 'UNAUTHORIZED');
    // The new certificate renews in its turn; a bad CSR changes nothing.
    const renewed = { cert: res.body.data.cert, key: pkcs8(newKey) };
    const bad = await extend(renewed, {
      certCsr: createCsr(ecKey(), 'not-the-router'),
      serverCertCsr: createCsr(ecKey(), 'edge'),
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'COULD_NOT_PROCESS_CSR');
    assert.equal((await admin.get(`/edge-routers/${id}`)).body.data.fingerprint, detail.fingerprint);
    const missing = await extend(renewed, { certCsr: createCsr(ecKey(), id) });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.cause.field, 'serverCertCsr');
  });

  it('curl renews with keys and CSRs made by openssl', async () => {
    const { id, credential } = await enrolledRouter();
    const files = (name: string, text: string) => {
      const p = path.join(tmp, `${id}.${name}`);
      writeFileSync(p, text, { mode: 0o600 });
      return p;
    };
    const csr = (cn: string, name: string) => {
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          path.join(tmp, `${id}.${name}.key`),
          '-out',
          path.join(tmp, `${id}.${name}.csr`),
          '-subj',
          `/CN=${cn}`,
          '-addext',
          'subjectAltName=DNS:router.example.net,IP:192.0.2.7',
        ],
        { stdio: 'ignore' },
      );
      return readFileSync(path.join(tmp, `${id}.${name}.csr`), 'utf8');
    };
    const body = files(
      'body.json',
      JSON.stringify({ certCsr: csr(id, 'client'), serverCertCsr: csr('router.example.net', 'server') }),
    );
    const { stdout } = await execFileAsync('curl', [
      '-sS',
      '--cacert',
      ctl.caFile,
      '--cert',
      files('crt', credential.cert),
      '--key',
      files('key', credential.key),
      '-X',
      'POST',
      '-H',
      'content-type: application/json',
      '--data-binary',
      `@${body}`,
      `${ctl.url}/edge/client/v1/enroll/extend/router`,
      '-w',
      '\n%{http_code}',
    ]);
    const [text, code] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
    assert.equal(code, '200', text);
    const answer = JSON.parse(text);
    validateResponse('client', 'POST', '/enroll/extend/router', 200, answer);
    assert.equal(leafOf(answer.data.serverCert).subjectAltName, 'DNS:router.example.net, IP Address:192.0.2.7');
    assert.equal((await admin.get(`/edge-routers/${id}`)).body.data.fingerprint, sha1(answer.data.cert));
  });

  it('after re-enroll the enrolled certificate renews nothing; without a certificate nothing is renewed', async () => {
    const { id, credential } = await enrolledRouter();
    assertStatus(await admin.post(`/edge-routers/${id}/re-enroll`, {}), 200, 're-enroll');
    const res = await extend(credential, {
      certCsr: createCsr(ecKey(), id),
      serverCertCsr: createCsr(ecKey(), 'edge'),
    });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
    const none = await extend(undefined, {
      certCsr: createCsr(ecKey(), id),
      serverCertCsr: createCsr(ecKey(), 'edge'),
    });
    assert.equal(none.status, 401);
  });
});
