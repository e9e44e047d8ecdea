import { readFileSync } from 'node:fs';
import { keepsLast } from '../completion/option-facts.js';
import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { InterruptedError, UsageError } from '../../console/errors.js';
import { allowSignalGrace } from '../../console/process-exit.js';
import { envFallback } from '../generic/env-fallback.js';
import { integer } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';
import { DEFAULT_PORT, dataDirSelection, defaultDataDir } from './paths.js';
import { shellQuote, suggestCommand } from '../../console/command-hint.js';
import { fileProblem } from '../../console/file-problem.js';
import { suggester } from '../generic/suggest.js';
import { clearState, runningState, writeState } from './state.js';

export interface StartOptions {
  dataDir: string;
  port: number;
  host: string;
  advertise: string[];
  adminUser: string;
  adminPassword?: string;
  /** A file holding the admin password (first line), read at start; preferred over the flag. */
  adminPasswordFile?: string;
  /** The password came from --admin-password (visible in `ps`): warn. */
  adminPasswordOnCommandLine?: boolean;
  sessionTimeoutMinutes: number;
  accessLog: boolean;
  corsOrigins?: string[];
  pkiDir?: string;
  /** The secret that seals the CA keys kept in the database, shared by every controller on it. */
  pkiKeyFile?: string;
  /** Serve the database together with other controllers that opted in too. */
  sharedDatabase: boolean;
  /** `postgres://...` for PostgreSQL, or a SQLite file's path; default: SQLite in the data directory. */
  store?: string;
  /** A built web console (OpenZiti's ZAC) served under /zac/ on the controller's origin. */
  console?: string;
  /** The client API's per-client request budget (`--client-rate-limit BURST/PER_SECOND`). */
  clientRateLimit?: { burst: number; perSecond: number };
  /** On SIGTERM or Ctrl-C, how long requests in flight may take to be answered before their connections close. */
  shutdownTimeoutSeconds: number;
}

/** `BURST/PER_SECOND`, e.g. `50/10`: requests a client may make at once, and how many a second it regains. */
const rateLimit = keepsLast((value: string): { burst: number; perSecond: number } => {
  const m = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(value.trim());
  const burst = m ? Number(m[1]) : NaN;
  const perSecond = m ? Number(m[2]) : NaN;
  if (!m || burst < 1 || perSecond <= 0)
    throw new UsageError(`--client-rate-limit ${value}: expected BURST/PER_SECOND with both above zero, e.g. 50/10`);
  return { burst, perSecond };
});

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The first line of a password file, without its line ending. */
function readPasswordFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--admin-password-file ${file}: ${fileProblem(err)}`);
  }
  return text.split(/\r?\n/)[0];
}

/** Resolves when the process is asked to stop (SIGTERM, SIGINT); the action wires it to real signals. */
export type StopSignal = Promise<string>;

function processStopSignal(graceSeconds: number): StopSignal {
  // The process ends on a signal after a grace period: long enough for the answers in flight and the store to close.
  allowSignalGrace((graceSeconds + 5) * 1000);
  return new Promise((resolve) => {
    const stop = (signal: string) => resolve(signal);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

export function buildStart(deps: Deps, run = runStart) {
  const command = withMeta(new Command('start'), {
    description:
      'Run the embedded controller in the foreground (HTTPS; ' +
      'SQLite, or PostgreSQL with --store) until SIGTERM or Ctrl-C',
    examples: [
      'ctl controller start',
      'ctl controller start --data-dir ./ctrl --port 1280 --admin-user admin',
      'CTL_ADMIN_PASSWORD=s3cret ctl controller start --host 0.0.0.0 --advertise ctrl.example.com',
      'ctl controller start --store postgres://ctl@db.example.com:5432/ctl   # password in PGPASSWORD or ~/.pgpass',
      'ctl controller start --store postgres://ctl@db.example.com/ctl --pki-key-file /etc/ctl/key --advertise ctl-a',
      'ctl controller start --console ./ziti-console/dist/app-ziti-console   # then open https://localhost:1280/zac/',
    ],
  })
    .addOption(
      new Option(
        '--data-dir <dir>',
        'database, PKI and state (default: $CTL_DATA_DIR or ~/.local/share/ctl/controller)',
      ),
    )
    .addOption(new Option('--port <port>', 'HTTPS port').argParser(integer(0, 65535)).default(DEFAULT_PORT))
    .addOption(new Option('--host <address>', 'address to listen on').default('127.0.0.1'))
    .addOption(
      new Option(
        '--advertise <addresses>',
        'HOST[:PORT] addresses clients reach the controller on, comma-separated: the first is its URL ' +
          'in /controllers and the issuer of the JWTs it signs (port: the listening one); ' +
          'the server certificate covers every one',
      ),
    )
    .addOption(
      new Option('--admin-user <name>', 'username of the default admin created on first start').default('admin'),
    )
    .addOption(
      new Option(
        '--admin-password <password>',
        'password of the default admin on first start (visible in ' +
          'ps: prefer CTL_ADMIN_PASSWORD or --admin-password-file)',
      ),
    )
    .addOption(
      new Option(
        '--admin-password-file <file>',
        'file whose first line is the password of the default admin on first start',
      ),
    )
    .addOption(
      new Option(
        '--pki-dir <dir>',
        'where the CA keys and server certificate live (default: ' +
          '<data-dir>/pki); keep the root CA key away from the database',
      ),
    )
    .addOption(
      envFallback(
        new Option(
          '--pki-key-file <file>',
          'keep the PKI in the database, its CA keys sealed with this secret (owner-only, 32+ bytes); ' +
            'give every controller on the database the same file',
        ),
        'CTL_PKI_KEY_FILE',
      ),
    )
    .addOption(
      new Option(
        '--shared-database',
        'serve the PostgreSQL database at the same time as other controllers started with this flag and the ' +
          'same --pki-key-file (docs/controller.md, "Several controllers on one database")',
      ),
    )
    // The flag's name while it was experimental, still taken.
    .addOption(new Option('--experimental-shared-database').hideHelp())
    .addOption(
      new Option(
        '--cors-origin <origin>',
        'an origin (https://host[:port]) allowed CORS with credentials; repeatable',
      ).argParser(collect),
    )
    .addOption(
      new Option('--session-timeout <minutes>', 'API session inactivity timeout')
        .argParser(integer(1, 525600))
        .default(30),
    )
    .addOption(
      envFallback(
        new Option(
          '--store <url>',
          'keep the data in PostgreSQL (postgres://user@host:port/db) or in the SQLite file at a path, locked ' +
            'as the data directory is (default: SQLite in the data directory)',
        ),
        'CTL_STORE_URL',
      ),
    )
    .addOption(
      envFallback(
        new Option('--console <dir>', "serve a built web console (OpenZiti's ZAC) from this directory under /zac/"),
        'CTL_CONSOLE_DIR',
      ),
    )
    .addOption(
      new Option('--shutdown-timeout <seconds>', 'on SIGTERM or Ctrl-C, how long requests in flight may take to finish')
        .argParser(integer(0, 3600))
        .default(10),
    )
    .addOption(
      new Option('--access-log', 'print one line per request on stderr (method, path, status, duration, request id)'),
    )
    .addOption(
      new Option(
        '--client-rate-limit <burst/per-second>',
        'client API requests a client may make at once / regains a second, beyond which 429 (default 50/10)',
      ).argParser(rateLimit),
    );
  return command.action(async (o) => {
    const opts: StartOptions = {
      dataDir: o.dataDir ?? defaultDataDir(deps.env),
      port: o.port,
      host: o.host,
      advertise: o.advertise
        ? o.advertise
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
      adminUser: o.adminUser,
      adminPassword: o.adminPassword ?? deps.env.CTL_ADMIN_PASSWORD,
      adminPasswordFile: o.adminPasswordFile,
      adminPasswordOnCommandLine: o.adminPassword !== undefined,
      sessionTimeoutMinutes: o.sessionTimeout,
      accessLog: Boolean(o.accessLog),
      corsOrigins: o.corsOrigin,
      pkiDir: o.pkiDir,
      pkiKeyFile: o.pkiKeyFile,
      sharedDatabase: Boolean(o.sharedDatabase || o.experimentalSharedDatabase),
      store: o.store,
      console: o.console,
      clientRateLimit: o.clientRateLimit,
      shutdownTimeoutSeconds: o.shutdownTimeout,
    };
    if (o.adminPassword !== undefined && o.adminPasswordFile !== undefined) {
      throw new UsageError('give the admin password once: --admin-password or --admin-password-file');
    }
    await run(opts, deps, processStopSignal(opts.shutdownTimeoutSeconds));
  });
}

export async function runStart(opts: StartOptions, deps: Deps, stopSignal: StopSignal): Promise<void> {
  const { io } = deps;
  if (opts.adminPasswordOnCommandLine) {
    io.info(
      'warning: --admin-password is visible to other users of this machine ' +
        '(ps, shell history); prefer CTL_ADMIN_PASSWORD or --admin-password-file',
    );
  }
  if (opts.adminPasswordFile !== undefined) opts = { ...opts, adminPassword: readPasswordFile(opts.adminPasswordFile) };
  for (const origin of opts.corsOrigins ?? []) {
    if (!/^https?:\/\/[^/\s]+\/?$/i.test(origin))
      throw new UsageError(`--cors-origin ${origin}: expected an origin such as https://console.example.com`);
  }
  if (opts.adminPassword !== undefined && (opts.adminPassword.length < 5 || opts.adminPassword.length > 100)) {
    throw new UsageError('the admin password must be 5 to 100 characters long');
  }
  const other = runningState(opts.dataDir);
  if (other && other.pid !== process.pid) {
    throw new UsageError(
      `a controller (pid ${other.pid}) is already running on ${other.url} with data directory ${opts.dataDir}`,
      [
        `stop it with \`${suggestCommand('ctl controller stop', dataDirSelection(opts.dataDir, deps.env))}\` ` +
          'or choose another --data-dir',
      ],
    );
  }
  const { startController } = await import('../../controller/index.js');
  const { DataDirLockedError, DataDirSymlinkError } = await import('../../controller/data-dir.js');
  const { StaticSiteError } = await import('../../controller/server/static.js');
  const { StoreUrlError } = await import('../../controller/store/driver.js');
  const { AdvertiseError } = await import('../../controller/advertise.js');
  const controller = await startController({
    dataDir: opts.dataDir,
    port: opts.port,
    host: opts.host,
    advertise: opts.advertise,
    adminUser: opts.adminUser,
    adminPassword: opts.adminPassword,
    sessionTimeoutMinutes: opts.sessionTimeoutMinutes,
    corsOrigins: opts.corsOrigins,
    pkiDir: opts.pkiDir,
    pkiKeyFile: opts.pkiKeyFile,
    sharedDatabase: opts.sharedDatabase,
    storeUrl: opts.store,
    consoleDir: opts.console,
    clientRateLimit: opts.clientRateLimit,
    shutdownGraceMs: opts.shutdownTimeoutSeconds * 1000,
    // Printed before it is stored: a start that fails afterwards never leaves a password nobody saw.
    announceAdminPassword: (password) => {
      io.info(`generated password for the default admin '${opts.adminUser}' (shown once, keep it safe):`);
      io.info(`  ${password}`);
    },
    log: (line) => io.info(line),
    accessLog: opts.accessLog ? (line) => io.info(line) : undefined,
  }).catch((err: unknown) => {
    const usage = [DataDirLockedError, DataDirSymlinkError, StaticSiteError, StoreUrlError, AdvertiseError].some(
      (type) => err instanceof type,
    );
    if (usage) throw new UsageError((err as Error).message);
    throw err;
  });
  writeState(opts.dataDir, {
    pid: process.pid,
    url: controller.url,
    port: controller.port,
    startedAt: deps.clock().toISOString(),
  });
  const login = (await suggester(deps))(`ctl login ${controller.url} -u ${shellQuote(controller.adminUser)}`);
  if (opts.console !== undefined) io.info(`web console: ${controller.url}/zac/`);
  // Last: the line that tells a watching parent (quickstart, tests) that the start is complete.
  io.info(`data directory: ${opts.dataDir}; trust ${opts.dataDir}/ca-bundle.pem or run: ${login}`);
  const signal = await stopSignal;
  io.info(`${signal}: shutting down`);
  await controller.close();
  clearState(opts.dataDir, process.pid);
  // A clean shutdown still ends a command that Ctrl-C interrupted: exit 130, as anywhere else in ctl.
  if (signal === 'SIGINT') throw new InterruptedError('interrupted: the controller has shut down');
}
