// A throwaway PostgreSQL cluster for the tests: its own temporary directory, a free port on 127.0.0.1 only, a
// superuser `ctl` with a random password, and durability switched off (fsync, full-page writes) because nothing in
// it needs to survive. No npm dependencies, so it runs before or without `npm install`.
//
//   node scripts/pg-cluster.mjs start [--state FILE]   start one (or reuse the running one); prints its URL on stdout
//   node scripts/pg-cluster.mjs url   [--state FILE]   prints the URL of the running cluster
//   node scripts/pg-cluster.mjs stop  [--state FILE]   stops it and removes its directory
//   node scripts/pg-cluster.mjs halt  [--state FILE]   stops the server only, keeping its data (fault tests)
//   node scripts/pg-cluster.mjs resume [--state FILE]  starts a halted server again, on the same port
//
// FILE (default: one per checkout and user in the temporary directory) records the directory, port and URL.
// PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as the `postgres` system user (which Debian's
// package creates) in a directory it owns. The binaries come from $PG_BINDIR, /usr/lib/postgresql/<newest>/bin
// (Debian) or PATH.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROLE = 'ctl';

function fail(message, details = []) {
  console.error(`pg-cluster: ${message}`);
  for (const line of details) console.error(`  ${line}`);
  process.exit(1);
}

const USAGE = 'usage: node scripts/pg-cluster.mjs start|url|stop|halt|resume [--state FILE]';

function parseArgs(argv) {
  const [command, ...rest] = argv;
  let state = path.join(
    os.tmpdir(),
    `ctl-pg-cluster-${os.userInfo().uid}-${createHash('sha1').update(ROOT).digest('hex').slice(0, 10)}.json`,
  );
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--state' && rest[i + 1]) state = path.resolve(rest[++i]);
    else fail(`unknown argument: ${rest[i]}`, [USAGE]);
  }
  if (!['start', 'url', 'stop', 'halt', 'resume'].includes(command)) fail(USAGE);
  return { command, state };
}

/** The directory holding initdb and pg_ctl: $PG_BINDIR, Debian's newest /usr/lib/postgresql/N/bin, or PATH. */
function findBinDir() {
  const candidates = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  try {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    // not Debian's layout
  }
  candidates.push(...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean));
  const dir = candidates.find((d) => existsSync(path.join(d, 'initdb')) && existsSync(path.join(d, 'pg_ctl')));
  if (!dir) {
    fail('no PostgreSQL server binaries (initdb, pg_ctl) found', [
      'install them (Debian/Ubuntu: apt-get install postgresql) or set PG_BINDIR to the directory holding them',
    ]);
  }
  return dir;
}

/** As root, who runs the server: the `postgres` system user (uid, gid); otherwise the current user (null). */
function serverUser() {
  if (process.getuid?.() !== 0) return null;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!entry)
    fail('PostgreSQL refuses to run as root and there is no `postgres` user to run it as', [
      'create one (useradd --system postgres) or run this as another user',
    ]);
  return { uid: Number(entry[2]), gid: Number(entry[3]), home: entry[5] };
}

/** Runs a PostgreSQL program (as the server user when we are root), failing with its output when it fails. */
function pgRun(binDir, user, program, args, cwd) {
  const result = spawnSync(path.join(binDir, program), args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      LC_ALL: 'C',
      ...(user ? { HOME: user.home || cwd, USER: 'postgres', LOGNAME: 'postgres' } : {}),
    },
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
  });
  return {
    ok: result.status === 0,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`.trim(),
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readState(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function isRunning(binDir, user, state) {
  return existsSync(state.dataDir) && pgRun(binDir, user, 'pg_ctl', ['-D', state.dataDir, 'status'], state.dir).ok;
}

function tail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines);
  } catch {
    return [];
  }
}

async function start(stateFile) {
  const binDir = findBinDir();
  const user = serverUser();
  const previous = readState(stateFile);
  if (previous && isRunning(binDir, user, previous)) {
    console.error(`pg-cluster: reusing the cluster running in ${previous.dir}`);
    console.log(previous.url);
    return;
  }
  if (previous) removeCluster(previous, stateFile);

  const started = Date.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const password = randomBytes(18).toString('hex');
  const pwFile = path.join(dir, 'pwfile');
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (user) chownSync(pwFile, user.uid, user.gid);

  // Password (SCRAM) on loopback TCP; trust only on the unix socket, which lives in this 0700 directory.
  const init = pgRun(
    binDir,
    user,
    'initdb',
    [
      '-D',
      dataDir,
      '-U',
      ROLE,
      `--pwfile=${pwFile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ],
    dir,
  );
  rmSync(pwFile, { force: true });
  if (!init.ok) {
    rmSync(dir, { recursive: true, force: true });
    fail('initdb failed', init.output.split('\n').slice(-15));
  }

  // The port is free when we look; if another process takes it before the server binds, try another one.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    appendFileSync(
      path.join(dataDir, 'postgresql.conf'),
      [
        '',
        '# throwaway test cluster (scripts/pg-cluster.mjs)',
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'max_connections = 200',
        '',
      ].join('\n'),
    );
    const run = pgRun(binDir, user, 'pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '60', 'start'], dir);
    if (run.ok) {
      const url = `postgres://${ROLE}:${password}@127.0.0.1:${port}/postgres`;
      writeFileSync(
        stateFile,
        `${JSON.stringify({ dir, dataDir, port, url, binDir, startedAt: new Date().toISOString() }, null, 2)}\n`,
        { mode: 0o600 },
      );
      console.error(
        `pg-cluster: PostgreSQL (${path.basename(path.dirname(binDir))}) on ` +
          `127.0.0.1:${port}, data in ${dir}, ready in ${Date.now() - started} ms`,
      );
      console.log(url);
      return;
    }
    if (attempt === 3 || !tail(logFile, 5).some((l) => /could not bind|Address already in use/.test(l))) {
      const details = [...run.output.split('\n').slice(-5), ...tail(logFile)];
      rmSync(dir, { recursive: true, force: true });
      fail('the server did not start', details);
    }
  }
}

function removeCluster(state, stateFile) {
  if (existsSync(state.dataDir)) {
    const binDir = existsSync(path.join(state.binDir ?? '', 'pg_ctl')) ? state.binDir : findBinDir();
    // Immediate: nothing in a throwaway cluster needs a clean shutdown.
    pgRun(binDir, serverUser(), 'pg_ctl', ['-D', state.dataDir, '-m', 'immediate', '-w', 'stop'], state.dir);
  }
  rmSync(state.dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
}

/**
 * Stops the server as a shutdown, a restart or a failover would (fast: sessions are ended, 57P01), or starts it
 * again on its port with its data, so that tests can watch a client live through it.
 */
function haltOrResume(command, state, stateFile) {
  if (!state) fail(`no cluster (state file ${stateFile})`, ['start one with: node scripts/pg-cluster.mjs start']);
  const log = path.join(state.dir, 'postgres.log');
  const args = command === 'halt' ? ['-m', 'fast', '-w', 'stop'] : ['-l', log, '-w', '-t', '60', 'start'];
  const run = pgRun(state.binDir, serverUser(), 'pg_ctl', ['-D', state.dataDir, ...args], state.dir);
  if (!run.ok) fail(`pg_ctl ${args[args.length - 1]} failed`, run.output.split('\n').slice(-5));
}

const { command, state: stateFile } = parseArgs(process.argv.slice(2));
if (command === 'start') {
  await start(stateFile);
} else if (command === 'halt' || command === 'resume') {
  haltOrResume(command, readState(stateFile), stateFile);
} else {
  const state = readState(stateFile);
  if (command === 'url') {
    if (!state || !isRunning(findBinDir(), serverUser(), state))
      fail(`no cluster is running (state file ${stateFile})`, ['start one with: node scripts/pg-cluster.mjs start']);
    console.log(state.url);
  } else if (!state) {
    console.error(`pg-cluster: no cluster to stop (state file ${stateFile})`);
  } else {
    removeCluster(state, stateFile);
    console.error(`pg-cluster: stopped and removed ${state.dir}`);
  }
}
