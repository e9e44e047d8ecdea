import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';

export interface LaunchRequest {
  dataDir: string;
  port: number;
  adminPassword: string;
  env: NodeJS.ProcessEnv;
}

/** Starts `ctl controller start` as a detached background process whose output goes to a log file. */
export type Launcher = (req: LaunchRequest) => { pid: number; logFile: string; exited: () => number | null };

export const spawnController: Launcher = (req) => {
  const logFile = join(req.dataDir, 'controller.log');
  const log = openSync(logFile, 'a', 0o600);
  // The running CLI's own entry point, so the background controller is the same version as this command.
  const child = spawn(
    process.execPath,
    [process.argv[1], 'controller', 'start', '--data-dir', req.dataDir, '--port', String(req.port)],
    {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...req.env, CTL_ADMIN_PASSWORD: req.adminPassword },
    },
  );
  let code: number | null = null;
  child.on('exit', (c) => (code = c ?? 1));
  child.unref();
  return { pid: child.pid ?? -1, logFile, exited: () => code };
};
