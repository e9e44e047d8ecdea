import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from '@commander-js/extra-typings';
import type { Deps } from '../deps.js';
import { FailureError, UsageError } from '../../console/errors.js';
import { integer } from '../generic/flags.js';
import { withMeta } from '../generic/meta.js';
import { spawnController, type Launcher } from './launcher.js';
import { DEFAULT_PORT, dataDirSelection, defaultDataDir } from './paths.js';
import { profileSelection, suggestCommand } from '../../console/command-hint.js';
import type { Selection } from '../../console/command-hint.js';
import { caBundleFile, runningState, type ControllerState } from './state.js';

export interface QuickstartOptions {
  dataDir: string;
  port: number;
  profile: string;
  /** How long to wait for a new controller to answer. */
  timeoutMs: number;
}

const ADMIN = 'admin';
const PASSWORD_FILE = 'quickstart-admin-password';

export function buildQuickstart(deps: Deps, run = runQuickstart) {
  return withMeta(new Command('quickstart'), {
    description:
      'Start a local controller in the background (or reuse the running one) and log in a profile to it ' +
      '(--profile or CTL_PROFILE, else `quickstart`)',
    examples: ['ctl quickstart', 'ctl quickstart --port 1443 --profile lab'],
  })
    .addOption(
      new Option('--data-dir <dir>', 'data directory (default: $CTL_DATA_DIR or ~/.local/share/ctl/controller)'),
    )
    .addOption(
      new Option('--port <port>', 'HTTPS port for a new controller').argParser(integer(1, 65535)).default(DEFAULT_PORT),
    )
    .action(async (o) => {
      const profile = deps.globals().profile ?? deps.env.CTL_PROFILE ?? 'quickstart';
      return run({ dataDir: o.dataDir ?? defaultDataDir(deps.env), port: o.port, profile, timeoutMs: 60_000 }, deps);
    });
}

export async function runQuickstart(
  opts: QuickstartOptions,
  deps: Deps,
  launch: Launcher = spawnController,
): Promise<void> {
  const { io } = deps;
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  let state = runningState(opts.dataDir);
  const sessions = await deps.sessions();
  const profile = profileSelection(opts.profile, (await sessions.profiles()).current());
  const ctl = invokedAs(deps.env);
  const password = adminPassword(opts.dataDir, Boolean(state), profile, ctl);
  if (state) {
    io.info(`reusing the controller running on ${state.url} (pid ${state.pid})`);
  } else {
    state = await io.spin('starting the controller', () => startInBackground(opts, deps, launch, password));
    io.info(`started a controller on ${state.url} (pid ${state.pid}); data in ${opts.dataDir}`);
  }
  await sessions.login({
    url: state.url,
    username: ADMIN,
    password,
    profileName: opts.profile,
    trust: { caFile: caBundleFile(opts.dataDir) },
  });
  await (await sessions.profiles()).use(opts.profile);
  const dataDir = dataDirSelection(opts.dataDir, deps.env);
  io.info(
    [
      `logged in as '${ADMIN}'; profile '${opts.profile}' is now the current profile`,
      '',
      'Try next:',
      `  ${ctl} identity create laptop-7 -a sales,emea --jwt-output laptop-7.jwt`,
      `  ${ctl} identity list 'anyOf(roleAttributes) = "sales"'`,
      `  ${ctl} whoami`,
      `  ${suggestCommand(`${ctl} controller status`, dataDir)}        ` +
        `# ${suggestCommand(`${ctl} controller stop`, dataDir)} to shut it down`,
    ].join('\n'),
  );
}

/**
 * How to run ctl again as it was run: `npx ctl` when npx ran it (npm marks that `npm_command=exec`), as README's
 * first command does from a fresh clone, where no `ctl` is on PATH until `npm link`.
 */
function invokedAs(env: NodeJS.ProcessEnv): string {
  return env.npm_command === 'exec' ? 'npx ctl' : 'ctl';
}

/**
 * The quickstart admin password lives in the data directory (0600), so a later quickstart can log in again
 * to the controller it started. A controller started some other way has no such file: say how to log in.
 */
function adminPassword(dataDir: string, running: boolean, profile: Selection, ctl: string): string {
  const file = join(dataDir, PASSWORD_FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (running || existsSync(join(dataDir, 'ctl.db'))) {
    throw new UsageError(
      `the controller in ${dataDir} was not set up by quickstart, so its admin password is unknown here`,
      [`log in with: ${suggestCommand(`${ctl} login <url> -u <admin user>`, profile)}`],
    );
  }
  const password = randomBytes(18).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

async function startInBackground(
  opts: QuickstartOptions,
  deps: Deps,
  launch: Launcher,
  password: string,
): Promise<ControllerState> {
  const child = launch({ dataDir: opts.dataDir, port: opts.port, adminPassword: password, env: deps.env });
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const state = runningState(opts.dataDir);
    if (state?.pid === child.pid && existsSync(caBundleFile(opts.dataDir))) return state;
    if (child.exited() !== null) {
      throw new FailureError(
        `the controller exited before it was ready (see ${child.logFile})`,
        lastLines(child.logFile),
      );
    }
    if (Date.now() > deadline)
      throw new FailureError(`the controller did not start within ${opts.timeoutMs / 1000}s (see ${child.logFile})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function lastLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5);
  } catch {
    return [];
  }
}
