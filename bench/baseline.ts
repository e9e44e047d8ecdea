// An older build of this program to measure against, outside the worktree: the commit's files (`git archive`, so
// no second worktree and no branch switch), this checkout's node_modules copied beside them, and `npm run build`.
// Kept in the temporary directory and reused by later runs (a marker file says the build finished).
//
// Run alone: `node --import tsx bench/baseline.ts COMMIT` prints the directory.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${r.stderr || r.error}`);
  return r.stdout;
}

/** The directory of a built checkout of `commit` (a commit, tag or branch of this repository). */
export function prepareBaseline(commit: string): string {
  const sha = run('git', ['rev-parse', '--verify', `${commit}^{commit}`], root).trim();
  const dir = join(tmpdir(), `ctl-baseline-${sha.slice(0, 12)}`);
  const marker = join(dir, '.bench-built');
  if (existsSync(marker)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['archive', sha], { cwd: root, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${sha} failed: ${archive.stderr}`);
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
  // The same installed packages (a superset of what older commits declare; native modules built for this Node).
  cpSync(join(root, 'node_modules'), join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  run('npm', ['run', 'build', '--silent'], dir);
  writeFileSync(marker, `${sha}\n`);
  return dir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!process.argv[2]) {
    console.error('usage: node --import tsx bench/baseline.ts COMMIT');
    process.exit(2);
  }
  console.log(prepareBaseline(process.argv[2]));
}
