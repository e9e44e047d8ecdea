// `--advertise HOST[:PORT]`: a controller reached on another address than it listens on (a balancer, a NAT) tells
// clients that address, as OpenZiti's edge.api.address: in /controllers, /version and the JWTs it signs. Alone, and
// beside another controller on one database, each row names its own.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { X509Certificate } from 'node:crypto';
import { startController } from '../../src/controller/index.js';
import {
  createIdentity,
  type HttpHelper,
  serverCertificatePem,
  startTestController,
  storeUnderTest,
  type TestController,
  unique,
} from '../helpers/controller.js';
import { TEST_PASSWORD_COST } from '../helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

/** The URLs a controller's row gives for its two APIs. */
function addressesOf(row: Record<string, any>): string[] {
  return [row.apiAddresses['edge-client'][0].url, row.apiAddresses['edge-management'][0].url];
}

async function enrollmentIssuer(admin: HttpHelper): Promise<string> {
  const id = await createIdentity(admin, { name: unique('adv'), enrollment: { ott: true } });
  return decodeJwt((await admin.get(`/identities/${id}`)).body.data.enrollment.ott.jwt).iss as string;
}

describe(`--advertise HOST[:PORT] (${storeUnderTest()})`, () => {
  let tmp: string;
  let database: TestDatabase | undefined;
  const running: TestController[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-advertise-'));
    if (storeUnderTest() === 'postgres') database = await createTestDatabase();
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
  });

  it('alone: its row, /version and its enrollment JWTs name the advertised address, not the listener', async () => {
    const ctl = await startTestController({ advertise: ['ctrl.ctl.test:9443', 'alt.ctl.test'] });
    running.push(ctl);
    const advertised = 'https://ctrl.ctl.test:9443';
    assert.equal(ctl.running.publicUrl, advertised);
    assert.notEqual(ctl.url, advertised, 'still listening where it was asked to');
    const admin = await ctl.admin();
    const [row] = (await admin.get('/controllers')).body.data;
    assert.deepEqual(addressesOf(row), [`${advertised}/edge/client/v1`, `${advertised}/edge/management/v1`]);
    const version = (await ctl.api.get('/version', { api: 'root' })).body.data;
    assert.deepEqual(version.apiVersions['edge-management'].v1.apiBaseUrls, [`${advertised}/edge/management/v1`]);
    assert.equal(await enrollmentIssuer(admin), advertised);
    const cert = new X509Certificate(await serverCertificatePem(ctl.url, ctl.caPem));
    assert.ok(cert.checkHost('ctrl.ctl.test') && cert.checkHost('alt.ctl.test'), 'the certificate covers both');
  });

  it('beside another on one database: each row gives its own address, the port the listener when none', async () => {
    const keyFile = await writeTestKeyFile(tmp);
    const storeUrl = database?.url ?? path.join(tmp, 'shared.db');
    const start = async (name: string, adminPassword?: string) => {
      const ctl = await startTestController({
        dataDir: path.join(tmp, name),
        storeUrl,
        pkiKeyFile: keyFile,
        sharedDatabase: Boolean(database),
        advertise: [`${name}.ctl.test`],
        adminPassword,
      });
      running.push(ctl);
      return ctl;
    };
    const a = await start('a');
    const issuedOnA = await enrollmentIssuer(await a.admin());
    // One after the other on SQLite; at once needs the shared-database flag, which only PostgreSQL takes.
    if (!database) await a.close();
    const b = await start('b', a.adminPassword);
    const rows = (await (await b.admin()).get('/controllers')).body.data as Array<Record<string, any>>;
    const urls = rows.map((row) => addressesOf(row)[1]).sort();
    const management = (ctl: TestController, name: string) => `https://${name}.ctl.test:${ctl.port}/edge/management/v1`;
    assert.deepEqual(urls, [management(a, 'a'), management(b, 'b')]);
    assert.equal(issuedOnA, `https://a.ctl.test:${a.port}`);
    assert.equal(await enrollmentIssuer(await b.admin()), `https://b.ctl.test:${b.port}`);
  });

  it('refuses an address that is not HOST[:PORT] before anything is made', async () => {
    const dataDir = path.join(tmp, 'refused');
    const start = startController({
      port: 0,
      dataDir,
      advertise: ['ctrl.ctl.test:99999'],
      adminPassword: 'unused-pw',
      passwordCost: TEST_PASSWORD_COST,
    });
    await assert.rejects(start, /--advertise ctrl\.ctl\.test:99999: the port must be 1 to 65535/);
    assert.equal(existsSync(dataDir), false, 'no data directory');
  });
});
