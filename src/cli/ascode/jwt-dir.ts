import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ApiClient } from '../../client/types.js';
import { FailureError, UsageError } from '../../console/errors.js';
import { fileProblem } from '../../console/file-problem.js';
import { reserveSecretFile } from '../generic/secret-file.js';
import type { SecretFile } from '../generic/secret-file.js';
import { entityPath } from '../generic/resolve.js';
import type { Change, Plan } from './plan.js';
import type { Outcome } from './write.js';

/** One JWT file per new identity or edge router, claimed before anything is written. */
type JwtFiles = Map<Change, { path: string; file: SecretFile }>;

/**
 * Claims `DIR/<name>.jwt` (mode 0600) for every create (or replace) of a kind that hands out an enrollment JWT,
 * before any write: an existing file is refused unless `force`, so a run never creates an entity whose JWT it
 * cannot save.
 */
export async function reserveJwtFiles(plan: Plan, dir: string, force: boolean): Promise<JwtFiles> {
  const files: JwtFiles = new Map();
  try {
    for (const change of plan.changes) {
      const creates = change.action === 'create' || change.action === 'replace';
      if (!creates || !change.kind.enrollmentJwt) continue;
      if (files.size === 0) await makeDir(dir);
      const p = path.join(dir, `${fileName(change.name)}.jwt`);
      files.set(change, { path: p, file: await reserveSecretFile(p, { force, flag: '--jwt-dir' }) });
    }
  } catch (err) {
    await abandon(files);
    throw err;
  }
  return files;
}

/** The directory, made (mode 0700, as the secrets it holds) when missing: `--jwt-dir enrol/` in a fresh checkout. */
async function makeDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new UsageError(`cannot make the --jwt-dir directory ${dir}: ${fileProblem(err)}`, [
      'nothing was sent to the controller',
    ]);
  }
}

/** A name as a file name: characters other than letters, digits, `.`, `_` and `-` become `_`. */
function fileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
}

/** Writes the JWT of each create that was done; removes the files claimed for creates that were not. */
export async function writeJwtFiles(api: ApiClient, files: JwtFiles, outcome: Outcome): Promise<string[]> {
  const written: string[] = [];
  const done = new Set(outcome.done);
  for (const [change, { path: p, file }] of files) {
    if (!done.has(change) || change.id === undefined) {
      await file.abandon();
      continue;
    }
    const { def } = change.kind;
    const detail = await api.get<Record<string, unknown>>(entityPath(def, change.id), { api: def.api });
    const jwt = change.kind.enrollmentJwt?.(detail);
    if (jwt === undefined) {
      await file.abandon();
      throw new FailureError(`created ${def.label} "${change.name}", but the controller returned no enrollment JWT`);
    }
    await file.write(jwt);
    written.push(p);
  }
  return written;
}

async function abandon(files: JwtFiles): Promise<void> {
  for (const { file } of files.values()) await file.abandon();
}
