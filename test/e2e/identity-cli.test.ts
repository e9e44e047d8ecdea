// The user story, driven through the built CLI against the real controller: create laptop-7 with attributes and an
// enrollment JWT, find it by attribute, change its attributes, disable it for a while and enable it again, delete
// it, and log out. Plus the output conventions (stdout carries only the result; -q, -o json|yaml, paging footer on
// stderr, --all). What the CLI did is checked on the server through the validating HTTP helper.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import {
  type LoggedInCli,
  describeRun,
  jsonEntity,
  jsonItems,
  parseJsonOutput,
  withLoggedInCli,
} from '../helpers/cli.js';
import {
  type HttpHelper,
  type TestController,
  assertError,
  assertStatus,
  createIdentity,
  msFrom,
  startTestController,
} from '../helpers/controller.js';
import { verifyEnrollmentJwt } from '../helpers/jwt.js';

let ctl: TestController;
let admin: HttpHelper;
let cli: LoggedInCli;
let tmp: string;

before(async () => {
  ctl = await startTestController();
  admin = await ctl.admin();
  cli = await withLoggedInCli(ctl);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'ctl-identity-cli-'));
});

after(async () => {
  await cli?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
  await ctl?.close();
});

async function byName(name: string): Promise<Record<string, any> | undefined> {
  const res = await admin.get('/identities', { query: { filter: `name = "${name}"` } });
  assertStatus(res, 200);
  return res.body.data[0];
}

async function showJson(nameOrId: string): Promise<Record<string, any>> {
  const r = await cli.expect(0, ['identity', 'show', nameOrId, '-o', 'json']);
  return jsonEntity(parseJsonOutput(r));
}

describe('the laptop-7 story', () => {
  let id: string;

  it('ctl identity create laptop-7 -a sales,emea --jwt-output FILE prints the id, writes the JWT (0600)', async () => {
    // another identity, so that the attribute filter below has something to leave out
    await createIdentity(admin, { name: 'desk-1', roleAttributes: ['eng'] });
    const jwtFile = path.join(tmp, 'laptop-7.jwt');
    const r = await cli.expect(0, ['identity', 'create', 'laptop-7', '-a', 'sales,emea', '--jwt-output', jwtFile]);
    id = r.stdout.trim();
    assert.match(id, /^\S+$/, `stdout is exactly the id: ${JSON.stringify(r.stdout)}`);
    assert.equal(r.stdout, `${id}\n`, 'nothing else on stdout');

    const res = await admin.get(`/identities/${id}`);
    assertStatus(res, 200);
    assert.equal(res.body.data.name, 'laptop-7');
    assert.deepEqual([...res.body.data.roleAttributes].sort(), ['emea', 'sales']);

    const st = await stat(jwtFile);
    assert.equal(st.mode & 0o777, 0o600, `JWT file mode ${(st.mode & 0o777).toString(8)}`);
    const jwt = (await readFile(jwtFile, 'utf8')).trim();
    const ott = res.body.data.enrollment?.ott;
    assert.ok(ott, 'the identity has an ott enrollment');
    assert.equal(jwt, ott.jwt, 'the file holds the enrollment JWT of the identity');
    const claims = await verifyEnrollmentJwt(jwt, ctl, { em: 'ott', sub: id, jti: ott.token });
    assert.ok(Math.abs(claims.exp * 1000 - Date.parse(ott.expiresAt)) < 2000, 'exp matches the enrollment expiry');
  });

  it('ctl identity list \'anyOf(roleAttributes) = "sales"\' -o json finds it, and only sales identities', async () => {
    const r = await cli.expect(0, ['identity', 'list', 'anyOf(roleAttributes) = "sales"', '-o', 'json']);
    const items = jsonItems(parseJsonOutput(r));
    assert.ok(
      items.some((i) => i.name === 'laptop-7' && i.id === id),
      'laptop-7 is listed',
    );
    assert.ok(!items.some((i) => i.name === 'desk-1'), 'desk-1 is not');
    for (const i of items) assert.ok((i.roleAttributes ?? []).includes('sales'), `${i.name} has sales`);
  });

  it('ctl identity update laptop-7 --add-attributes finance --remove-attributes emea', async () => {
    await cli.expect(0, [
      'identity',
      'update',
      'laptop-7',
      '--add-attributes',
      'finance',
      '--remove-attributes',
      'emea',
    ]);
    const shown = await showJson('laptop-7');
    assert.deepEqual([...shown.roleAttributes].sort(), ['finance', 'sales']);
    const res = await admin.get(`/identities/${id}`);
    assert.deepEqual([...res.body.data.roleAttributes].sort(), ['finance', 'sales']);
  });

  it('ctl identity disable laptop-7 --for 30m', async () => {
    const at = Date.now();
    await cli.expect(0, ['identity', 'disable', 'laptop-7', '--for', '30m']);
    const shown = await showJson('laptop-7');
    assert.equal(shown.disabled, true);
    assert.ok(
      msFrom(shown.disabledUntil, at + 30 * 60_000) < 120_000,
      `disabledUntil ~ now+30m: ${shown.disabledUntil}`,
    );
  });

  it('ctl identity enable laptop-7', async () => {
    await cli.expect(0, ['identity', 'enable', 'laptop-7']);
    const shown = await showJson('laptop-7');
    assert.equal(shown.disabled, false);
    assert.equal(shown.disabledUntil ?? null, null);
  });

  it('delete without --yes and without a terminal refuses (exit 3) and deletes nothing', async () => {
    const r = await cli.run(['identity', 'delete', 'laptop-7']);
    assert.equal(r.code, 3, describeRun(['identity', 'delete', 'laptop-7'], r));
    assert.ok(r.stderr.includes('--yes'), `stderr names --yes: ${r.stderr}`);
    assertStatus(await admin.get(`/identities/${id}`), 200, 'laptop-7 still exists');
  });

  it('ctl identity delete laptop-7 --yes; then show exits 5', async () => {
    await cli.expect(0, ['identity', 'delete', 'laptop-7', '--yes']);
    assertError(await admin.get(`/identities/${id}`), 404, 'NOT_FOUND');
    const r = await cli.expect(5, ['identity', 'show', 'laptop-7']);
    assert.equal(r.stdout, '', 'nothing on stdout');
    assert.ok(r.stderr.includes('laptop-7'), `stderr names what was not found: ${r.stderr}`);
  });

  it('delete of a missing name exits 5; with --ignore-missing it exits 0', async () => {
    await cli.expect(5, ['identity', 'delete', 'laptop-7', '--yes']);
    await cli.expect(0, ['identity', 'delete', 'laptop-7', '--yes', '--ignore-missing']);
  });
});

describe('output conventions', () => {
  const prefix = 'page-';
  let ids: string[] = [];

  before(async () => {
    ids = [];
    for (let i = 0; i < 5; i++)
      ids.push(await createIdentity(admin, { name: `${prefix}${i}`, roleAttributes: ['paging'] }));
    for (let i = 0; i < 12; i++) await createIdentity(admin, { name: `bulk-${String(i).padStart(2, '0')}` });
  });

  it('-o json: stdout is one JSON document and nothing else', async () => {
    for (const args of [
      ['identity', 'list', '-o', 'json'],
      ['identity', 'show', `${prefix}0`, '-o', 'json'],
      ['identity', 'list', `name = "${prefix}0"`, '-o', 'json'],
    ]) {
      const r = await cli.expect(0, args);
      parseJsonOutput(r, `stdout of ctl ${args.join(' ')}`);
    }
    const shown = await showJson(`${prefix}0`);
    assert.equal(shown.id, ids[0]);
    assert.equal(shown.name, `${prefix}0`);
  });

  it('-o yaml parses as YAML with the same content', async () => {
    const r = await cli.expect(0, ['identity', 'show', `${prefix}1`, '-o', 'yaml']);
    const doc = jsonEntity(parseYaml(r.stdout));
    assert.equal(doc.id, ids[1]);
    assert.equal(doc.name, `${prefix}1`);
    const l = await cli.expect(0, ['identity', 'list', `name contains "${prefix}"`, '-o', 'yaml']);
    assert.equal(jsonItems(parseYaml(l.stdout)).length, 5);
  });

  it('CTL_OUTPUT=json works like -o json', async () => {
    const r = await cli.expect(0, ['identity', 'show', `${prefix}2`], { env: { CTL_OUTPUT: 'json' } });
    assert.equal(jsonEntity(parseJsonOutput(r)).id, ids[2]);
  });

  it('-q prints only ids, one per line', async () => {
    const r = await cli.expect(0, ['identity', 'list', `name contains "${prefix}"`, '-q']);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    assert.deepEqual([...lines].sort(), [...ids].sort());
    assert.ok(r.stdout.endsWith('\n'));
    const one = await cli.expect(0, ['identity', 'list', `name = "${prefix}3"`, '-q']);
    assert.equal(one.stdout, `${ids[3]}\n`);
  });

  it('a table on stdout, the paging footer on stderr (--limit/--offset)', async () => {
    const r = await cli.expect(0, [
      'identity',
      'list',
      `name contains "${prefix}" sort by name`,
      '--limit',
      '2',
      '--offset',
      '1',
    ]);
    assert.ok(r.stdout.includes(`${prefix}1`) && r.stdout.includes(`${prefix}2`), `rows 2-3 shown:\n${r.stdout}`);
    assert.ok(!r.stdout.includes(`${prefix}0`) && !r.stdout.includes(`${prefix}3`), `only rows 2-3:\n${r.stdout}`);
    assert.match(r.stderr, /\b5\b/, `the footer says how many there are: ${r.stderr}`);
    assert.match(r.stderr, /--offset/, `the footer says how to get the next page: ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /--offset/, 'the footer is not on stdout');
    const j = await cli.expect(0, [
      'identity',
      'list',
      `name contains "${prefix}" sort by name`,
      '--limit',
      '2',
      '--offset',
      '1',
      '-o',
      'json',
    ]);
    assert.deepEqual(
      jsonItems(parseJsonOutput(j)).map((i) => i.name),
      [`${prefix}1`, `${prefix}2`],
    );
  });

  it('--all follows the pages', async () => {
    const page = await cli.expect(0, ['identity', 'list', 'name contains "bulk-"', '-o', 'json']);
    assert.ok(jsonItems(parseJsonOutput(page)).length < 12, 'one page is not everything');
    const all = await cli.expect(0, ['identity', 'list', 'name contains "bulk-"', '--all', '-o', 'json']);
    const names = jsonItems(parseJsonOutput(all))
      .map((i) => i.name)
      .sort();
    assert.deepEqual(
      names,
      Array.from({ length: 12 }, (_v, i) => `bulk-${String(i).padStart(2, '0')}`),
    );
    const q = await cli.expect(0, ['identity', 'list', 'name contains "bulk-"', '--all', '-q']);
    assert.equal(q.stdout.split('\n').filter(Boolean).length, 12, '--all -q prints every id');
  });

  it("a bad filter exits 6 with the controller's message on stderr and nothing on stdout", async () => {
    const r = await cli.expect(6, ['identity', 'list', 'nosuchfield = "x"']);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.includes('nosuchfield'), r.stderr);
  });

  it('a duplicate create exits 6 and says so in words', async () => {
    const r = await cli.expect(6, ['identity', 'create', `${prefix}0`]);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n')[0], `error: an identity named ${prefix}0 already exists`);
    assert.doesNotMatch(r.stderr, /invalid document|unique index/);
  });

  it('an unwritable --jwt-output fails before the identity is created, so a retry is not a duplicate', async () => {
    const r = await cli.expect(1, [
      'identity',
      'create',
      `${prefix}-jwt`,
      '--jwt-output',
      path.join(tmp, 'no', 'such', 'x.jwt'),
    ]);
    assert.match(r.stderr, /cannot write/);
    assert.equal(await byName(`${prefix}-jwt`), undefined, 'nothing was created');
    const file = path.join(tmp, `${prefix}-jwt.jwt`);
    await cli.expect(0, ['identity', 'create', `${prefix}-jwt`, '--jwt-output', file]);
    const again = await cli.expect(2, ['identity', 'create', `${prefix}-jwt2`, '--jwt-output', file]);
    assert.match(again.stderr, /already exists.*\n.*--force/);
    assert.equal(await byName(`${prefix}-jwt2`), undefined);
  });
});

describe('logout', () => {
  it('ctl logout ends the session on the controller; then ctl identity list exits 4', async () => {
    const cur = await cli.expect(0, ['api', 'GET', '/current-api-session']);
    const doc = parseJsonOutput(cur);
    const token = (doc.data ?? doc).token as string;
    assert.equal(typeof token, 'string');
    assertStatus(await ctl.api.as(token).get('/current-api-session'), 200, 'the stored token works before logout');

    await cli.expect(0, ['logout']);
    const r = await cli.expect(4, ['identity', 'list']);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /login/, `says how to log in again: ${r.stderr}`);
    assertError(await ctl.api.as(token).get('/current-api-session'), 401, 'UNAUTHORIZED');
  });
});
