import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Selection } from '../../console/command-hint.js';

/**
 * The controller's default data directory: `$CTL_DATA_DIR`, else `$XDG_DATA_HOME/ctl/controller`, else
 * `~/.local/share/ctl/controller`. `ctl controller start`, `stop`, `status` and `ctl quickstart` share it, so the
 * quickstart controller is the one the others manage unless `--data-dir` says otherwise.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  if (env.CTL_DATA_DIR) return env.CTL_DATA_DIR;
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'ctl', 'controller');
}

export const DEFAULT_PORT = 1280;

/**
 * What a suggested controller command needs to act on `dataDir`: `--data-dir` (absolute, so that it holds from any
 * directory) unless the bare command's default is that directory anyway.
 */
export function dataDirSelection(dataDir: string, env: NodeJS.ProcessEnv): Selection {
  const dir = resolve(dataDir);
  return dir === resolve(defaultDataDir(env)) ? {} : { dataDir: dir };
}
