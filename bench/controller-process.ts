import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ControllerProcess {
  url: string;
  /** The controller's process id (its memory is read from /proc). */
  pid: number;
  caBundlePem: string;
  /** CPU time the controller's process has used so far (user and system), in seconds. */
  cpuSeconds(): number;
  stop(): void;
}

/** The password of the admin every controller the bench starts has. */
export const BENCH_ADMIN_PASSWORD = 'bench-admin';

/** Clock ticks per second of /proc's times: 100 on Linux (USER_HZ), whatever the kernel's own rate. */
const USER_HZ = 100;

export function cpuSecondsOf(pid: number): number {
  // The command name (field 2) may hold spaces: count the fields after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/**
 * Runs `ctl controller start` on a free port and waits until its state file says it is listening. `root` is the
 * checkout whose build to run (default: this one); `storeUrl` a PostgreSQL database (default: SQLite in dataDir);
 * `cpuProfileDir` where node writes the controller's CPU profile when it stops (`node --cpu-prof`).
 */
export async function startControllerProcess(
  dataDir: string,
  opts: { root?: string; storeUrl?: string; args?: string[]; cpuProfileDir?: string } = {},
): Promise<ControllerProcess> {
  const ctl = opts.root ? join(opts.root, 'bin', 'ctl.js') : new URL('../bin/ctl.js', import.meta.url).pathname;
  const profile = opts.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfileDir] : [];
  const args = [...profile, ctl, 'controller', 'start', '--data-dir', dataDir, '--port', '0', ...(opts.args ?? [])];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      CTL_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
      ...(opts.storeUrl ? { CTL_STORE_URL: opts.storeUrl } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stateFile = join(dataDir, 'controller.json');
  const deadline = Date.now() + 60_000;
  while (!existsSync(stateFile)) {
    if (child.exitCode !== null) throw new Error(`the controller exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('the controller did not start within 60s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(stateFile, 'utf8')) as { url: string };
  return {
    url,
    pid: child.pid!,
    caBundlePem: readFileSync(join(dataDir, 'ca-bundle.pem'), 'utf8'),
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    stop: () => child.kill('SIGTERM'),
  };
}
