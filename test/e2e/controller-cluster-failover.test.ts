// A profile of two controllers serving one PostgreSQL database: ctl logs in to both, and when the one it uses stops,
// its commands are answered by the other with the same session, which the profile then starts with.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ControllerOptions } from '../../src/controller/types.js';
import { startTestController, storeUnderTest, unique, type TestController } from '../helpers/controller.js';
import { expectCtl, jsonItems, parseJsonOutput, runCtl, tempConfigDir } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { writeTestKeyFile } from '../helpers/pki-key-file.js';

const postgres = storeUnderTest() === 'postgres';

describe('ctl with a profile of two controllers on one database', { skip: !postgres && 'PostgreSQL only' }, () => {
  let tmp: string;
  let database: TestDatabase;
  let configDir: string;
  const running: TestController[] = [];

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-failover-'));
    const keyFile = await writeTestKeyFile(tmp);
    database = await createTestDatabase();
    configDir = await tempConfigDir();
    const options = (name: string, extra: Partial<ControllerOptions> = {}): Partial<ControllerOptions> => ({
      dataDir: path.join(tmp, name),
      storeUrl: database.url,
      pkiKeyFile: keyFile,
      sharedDatabase: true,
      ...extra,
    });
    const a = await startTestController(options('a'));
    running.push(a);
    running.push(await startTestController(options('b', { adminPassword: a.adminPassword })));
  });
  after(async () => {
    for (const ctl of running) await ctl.close();
    await database?.drop();
    await rm(tmp, { recursive: true, force: true });
    if (configDir) await rm(path.dirname(configDir), { recursive: true, force: true });
  });

  it('logs in to both, and answers through the second once the first stops', async () => {
    const [a, b] = running;
    const ctl = (code: number, args: string[]) => expectCtl(code, args, { configDir });
    await expectCtl(0, ['login', `${a.url},${b.url}`, '-u', 'admin', '--password-stdin', '--ca', a.caFile], {
      configDir,
      stdin: `${a.adminPassword}\n`,
    });
    const shown = parseJsonOutput(await ctl(0, ['profile', 'show', '-o', 'json']));
    assert.deepEqual([shown.controller, shown.controllers], [a.url, [a.url, b.url]]);
    const before = unique('before-failover');
    await ctl(0, ['identity', 'create', before]);

    await a.close();
    const names = jsonItems(parseJsonOutput(await ctl(0, ['identity', 'list', '-o', 'json']))).map((i) => i.name);
    assert.ok(names.includes(before), `the second controller lists what was made through the first: ${names}`);
    // A write whose connection was refused reached nothing: it is made on the second.
    const after = unique('after-failover');
    await ctl(0, ['identity', 'create', after]);
    const again = parseJsonOutput(await ctl(0, ['profile', 'show', '-o', 'json']));
    assert.equal(again.controller, b.url, 'the profile now starts with the controller that answered');

    await b.close();
    const down = await runCtl(['identity', 'list'], { configDir });
    assert.equal(down.code, 1, down.stderr);
    assert.match(down.stderr, /^error: no controller could serve the request:\n/);
    for (const ctlUrl of [a.url, b.url]) assert.match(down.stderr, new RegExp(`  ${ctlUrl}: cannot connect to `));
  });
});
