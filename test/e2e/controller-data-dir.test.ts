// One controller per data directory (docs/security.md): two started at the same moment on a fresh directory, one
// wins and the other is refused with a message naming the directory; a lock left by kill -9 does not block the
// next start; a SQLite file given by path is taken as the directory is; symbolic links among the directory's entries
// are refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runCtl } from '../helpers/cli.js';
import { startTestController, storeUnderTest } from '../helpers/controller.js';

const root = path.resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ctl-datadir-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const script = path.join(tmp, 'start.mts');
writeFileSync(
  script,
  `import { startController } from ${JSON.stringify(path.join(root, 'src/controller/index.ts'))};
try {
  const c = await startController({ dataDir: process.argv[2], port: 0, adminPassword: 'admin-pass' });
  process.stdout.write('STARTED\\n');
  process.stdin.on('data', async () => { await c.close(); process.exit(0); });
} catch (err) {
  process.stdout.write('REFUSED ' + (err as Error).message + '\\n');
  process.exit(3);
}
`,
);

function startChild(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => resolve(out.trim()));
  });
  return { child, line };
}

describe('one controller per data directory', () => {
  it('two starts at once on a fresh directory: one runs, the other is refused naming the directory', async () => {
    const dataDir = path.join(tmp, 'race');
    const a = startChild(dataDir);
    const b = startChild(dataDir);
    const lines = await Promise.all([a.line, b.line]);
    try {
      assert.equal(lines.filter((l) => l === 'STARTED').length, 1, lines.join(' | '));
      const refused = lines.find((l) => l.startsWith('REFUSED'));
      assert.ok(refused?.includes(dataDir), `the refusal names the directory: ${refused}`);
    } finally {
      for (const c of [a, b]) c.child.stdin.end('stop\n');
      await Promise.all(
        [a, b].map((c) => new Promise((r) => (c.child.exitCode !== null ? r(null) : c.child.once('exit', r)))),
      );
    }
    assert.equal(existsSync(path.join(dataDir, 'controller.lock')), false, 'a clean stop releases the lock');
  });

  it('a controller killed with SIGKILL does not block the next start', async () => {
    const dataDir = path.join(tmp, 'killed');
    const a = startChild(dataDir);
    assert.equal(await a.line, 'STARTED');
    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    assert.ok(existsSync(path.join(dataDir, 'controller.lock')), 'kill -9 leaves the lock behind');
    const ctl = await startTestController({ dataDir });
    await ctl.close();
  });

  it('a second start in a running process is refused, and allowed again after close', async () => {
    const dataDir = path.join(tmp, 'same-process');
    const first = await startTestController({ dataDir });
    try {
      await assert.rejects(
        startTestController({ dataDir }),
        (err: Error) => err.message.includes(dataDir) && /in use/.test(err.message),
      );
    } finally {
      await first.close();
    }
    const again = await startTestController({ dataDir });
    await again.close();
  });

  /** A start that must be refused: its error (a controller that started anyway is stopped, and the test fails). */
  async function refusedStart(options: Parameters<typeof startTestController>[0]): Promise<Error> {
    const started = await startTestController(options).then(
      (controller) => controller,
      (err: Error) => err,
    );
    if (started instanceof Error) return started;
    await started.close();
    assert.fail('the start was not refused');
  }

  it('a SQLite file given by path is taken too: a controller with another data directory is refused it', async () => {
    const file = path.join(tmp, 'shared-file', 'ctl.db');
    mkdirSync(path.dirname(file));
    const first = await startTestController({ dataDir: path.join(tmp, 'file-a'), storeUrl: file });
    try {
      const second = await refusedStart({ dataDir: path.join(tmp, 'file-b'), storeUrl: `sqlite://${file}` });
      assert.match(second.message, /^the database .* is in use: .*another --store/);
      assert.ok(second.message.includes(file), second.message);
      assert.equal(existsSync(path.join(tmp, 'file-b', 'controller.lock')), false, 'the refused start let go');
    } finally {
      await first.close();
    }
    assert.equal(existsSync(`${file}.lock`), false, 'a clean stop releases the lock');
    const again = await startTestController({ dataDir: path.join(tmp, 'file-b'), storeUrl: file });
    await again.close();
  });

  // Only where the tests' controllers run on their own SQLite database (not in the PostgreSQL pass).
  const ownSqlite = storeUnderTest() === 'sqlite' ? false : 'the test controllers run on PostgreSQL here';
  it("a controller's own database is taken too: another given it by --store is refused it", {
    skip: ownSqlite,
  }, async () => {
    const dataDir = path.join(tmp, 'own-db');
    const first = await startTestController({ dataDir });
    try {
      const second = await refusedStart({
        dataDir: path.join(tmp, 'own-db-b'),
        storeUrl: path.join(dataDir, 'ctl.db'),
      });
      assert.match(second.message, /^the database .*ctl\.db is in use/);
    } finally {
      await first.close();
    }
    // An empty store URL (CTL_STORE_URL set to nothing) names no store: the data directory's, locked as such.
    const emptyUrl = path.join(tmp, 'own-db-empty-url');
    const third = await startTestController({ dataDir: emptyUrl, storeUrl: '' });
    try {
      assert.ok(existsSync(path.join(emptyUrl, 'ctl.db.lock')), 'the data directory database is locked');
      assert.equal(existsSync(`${process.cwd()}.lock`), false, 'nothing locked beside the working directory');
    } finally {
      await third.close();
    }
  });

  it('refuses a database lock that is a symbolic link; a database in a missing directory is unusable', async () => {
    const file = path.join(tmp, 'linked-lock', 'ctl.db');
    mkdirSync(path.dirname(file));
    const target = path.join(tmp, 'linked-target');
    writeFileSync(target, 'keep me');
    symlinkSync(target, `${file}.lock`);
    const linked = await refusedStart({ dataDir: path.join(tmp, 'linked-dir'), storeUrl: file });
    assert.match(linked.message, /symbolic link; a database's lock files must be/);
    assert.equal(readFileSync(target, 'utf8'), 'keep me', 'the link target was not touched');
    const missing = path.join(tmp, 'no-such-dir', 'ctl.db');
    const unusable = await refusedStart({ dataDir: path.join(tmp, 'missing-dir'), storeUrl: missing });
    assert.equal(unusable.name, 'StoreUnavailableError', String(unusable));
    assert.ok(unusable.message.startsWith(`cannot open the database ${missing}`), unusable.message);
  });

  it('refuses a data directory entry that is a symbolic link', async () => {
    const dataDir = path.join(tmp, 'symlink');
    const first = await startTestController({ dataDir });
    await first.close();
    const target = path.join(tmp, 'elsewhere.pem');
    writeFileSync(target, 'keep me');
    rmSync(path.join(dataDir, 'ca-bundle.pem'));
    symlinkSync(target, path.join(dataDir, 'ca-bundle.pem'));
    await assert.rejects(startTestController({ dataDir }), /symbolic link; the data directory's entries must be/);
    assert.equal(readFileSync(target, 'utf8'), 'keep me', 'the link target was not touched');
    assert.equal(existsSync(path.join(dataDir, 'controller.lock')), false, 'a refused start releases the lock');
  });

  it('keeps the PKI in --pki-dir when given', async () => {
    const dataDir = path.join(tmp, 'with-pki-dir');
    const pkiDir = path.join(tmp, 'separate-pki');
    const ctl = await startTestController({ dataDir, pkiDir });
    await ctl.close();
    assert.equal(existsSync(path.join(dataDir, 'pki')), false);
    assert.ok(existsSync(pkiDir));
  });
});

describe('a damaged database file is refused at start', () => {
  /** A SQLite file of several pages, as a controller's database would be, then cut to `size` bytes. */
  function realDatabaseCutTo(file: string, size: number): void {
    const db = new Database(file);
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(200));
    db.close();
    truncateSync(file, size);
  }
  const cases: Array<[string, (file: string) => void, RegExp]> = [
    ['empty', (file) => writeFileSync(file, ''), /is empty/],
    ['truncated', (file) => realDatabaseCutTo(file, 4096 + 100), /is truncated/],
    ['cut to a whole number of pages', (file) => realDatabaseCutTo(file, 4096 * 2), /is truncated/],
    ['not a database', (file) => writeFileSync(file, 'text long enough for a header. '.repeat(8)), /is not a SQLite/],
  ];
  for (const [what, make, reason] of cases) {
    it(`${what}: one line naming the file and what to do, exit 1, nothing created, the file untouched`, async () => {
      const dataDir = path.join(tmp, `damaged-${what.replace(/\W+/g, '-')}`);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const file = path.join(dataDir, 'ctl.db');
      make(file);
      const before = readFileSync(file);
      const start = ['controller', 'start', '--data-dir', dataDir, '--port', '0'];
      const r = await runCtl(start, { process: true, env: { CTL_STORE_URL: undefined } });
      assert.equal(r.code, 1, `${r.stdout}${r.stderr}`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.ok(lines[0].includes(file), r.stderr);
      assert.match(lines[0], reason);
      assert.match(lines[0], /restore it from a backup, or move it away/);
      assert.doesNotMatch(r.stderr, /bug in ctl|generated password/);
      assert.deepEqual(readdirSync(dataDir).sort(), ['ctl.db'], 'nothing was created beside it');
      assert.deepEqual(readFileSync(file), before, 'the file is untouched');
    });
  }
});
