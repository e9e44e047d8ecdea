// An intermediate rotation does not orphan what it issued: an identity enrolled under the outgoing intermediate still
// logs in with its certificate once the controller restarts on the rotated data directory (same database), new
// enrollments come from the new intermediate, and the CA bundle carries both. SQLite file store, two controllers.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveCertificate } from '../../src/controller/model/auth/cert-login.js';
import { createController, type Controller } from '../../src/controller/index.js';
import { loadOrCreatePki } from '../../src/controller/pki/pki.js';
import { createCsr } from '../../src/protocol/csr.js';
import { TEST_PASSWORD_COST } from '../helpers/fixtures.js';

const DAY = 86_400_000;
const ADMIN_PASSWORD = 'Rotation-admin-1';

describe('intermediate CA rotation (a restarted controller)', () => {
  let tmp = '';
  after(async () => tmp && rm(tmp, { recursive: true, force: true }));

  async function start(pkiDir: string, db: string, now: Date): Promise<{ app: Controller; token: string }> {
    const app = await createController({
      dataDir: '/nonexistent',
      publicUrl: 'https://127.0.0.1:1',
      pki: await loadOrCreatePki(pkiDir, { hosts: ['127.0.0.1'], now }),
      store: { sqlite: db },
      adminPassword: ADMIN_PASSWORD,
      passwordCost: TEST_PASSWORD_COST,
    });
    const login = await app.inject({
      method: 'POST',
      url: '/edge/management/v1/authenticate?method=password',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    assert.equal(login.statusCode, 200, login.body);
    return { app, token: login.json().data.token };
  }

  async function enroll(app: Controller, token: string, name: string): Promise<{ id: string; cert: X509Certificate }> {
    const json = (method: string, url: string, body: unknown) =>
      app.inject({
        method,
        url,
        headers: { 'content-type': 'application/json', 'zt-session': token },
        payload: JSON.stringify(body),
      });
    const created = await json('POST', '/edge/management/v1/identities', {
      name,
      type: 'Device',
      isAdmin: false,
      enrollment: { ott: true },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id as string;
    const detail = await app.inject({
      method: 'GET',
      url: `/edge/management/v1/identities/${id}`,
      headers: { 'zt-session': token },
    });
    const ott = detail.json().data.enrollment.ott.token as string;
    const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const res = await json('POST', '/edge/client/v1/enroll/ott', { token: ott, clientCsr: createCsr(key, name) });
    assert.equal(res.statusCode, 200, res.body);
    return { id, cert: new X509Certificate(res.json().data.cert) };
  }

  it('the old certificate logs in after the rotation; new ones come from the new intermediate', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-rotation-'));
    const pkiDir = path.join(tmp, 'pki');
    const db = path.join(tmp, 'ctl.db');
    const now = new Date();

    const first = await start(pkiDir, db, now);
    const before = first.app.runtime.pki;
    const old = await enroll(first.app, first.token, 'before-rotation');
    assert.ok(old.cert.verify(new X509Certificate(before.intermediateCertPem).publicKey));
    await first.app.close();

    // The same data directory, started within 30 days of the intermediate's expiry: it is replaced.
    const later = new Date(Date.parse(new X509Certificate(before.intermediateCertPem).validTo) - 20 * DAY);
    const second = await start(pkiDir, db, later);
    const after = second.app.runtime.pki;
    assert.equal(after.rootCertPem, before.rootCertPem);
    assert.notEqual(after.intermediateCertPem, before.intermediateCertPem);
    assert.ok(after.caBundlePem.includes(before.intermediateCertPem.trim()));

    const found = await resolveCertificate(second.app.runtime, old.cert.raw, now);
    assert.equal(found.subject.identity.id, old.id, 'a certificate of the outgoing intermediate still logs in');
    const fresh = await enroll(second.app, second.token, 'after-rotation');
    assert.ok(
      fresh.cert.verify(new X509Certificate(after.intermediateCertPem).publicKey),
      'new certificates come from the new intermediate',
    );
    assert.equal(fresh.cert.verify(new X509Certificate(before.intermediateCertPem).publicKey), false);
    assert.equal((await resolveCertificate(second.app.runtime, fresh.cert.raw, later)).subject.identity.id, fresh.id);
    await second.app.close();
  });
});
