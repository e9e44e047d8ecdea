// Times fresh processes from a small parent. A large parent (the bench itself, with undici and the store loaded)
// pays tens of milliseconds more per spawn (fork of a big heap, exec), which hides the start-up cost being
// measured: this file imports node:child_process only.
//
// Usage: node bench/spawn-timer.mjs RUNS '<json: [[argv...], {"args": [argv...], "env": {...}}, ...]>'
// Each argv is run with `process.execPath` (with `env` added to this process's environment, where given); the
// commands are alternated (A B C A B C ...) so that a burst of load on the shared machine hits each of them alike.
// Prints {"runs": RUNS, "medians": [ms, ...], "cpu": [ms, ...], "unset": [name, ...]} as JSON: median wall times,
// (on Linux) the mean CPU time (user + system) of each command's processes, read from this process's children times
// in /proc/self/stat, and the variables of NODE_START (below) that were set here and removed for the children.
// CPU time counts 10 ms ticks, so only its mean over many runs means anything; it moves less than wall time when
// other work competes for the cores.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const runs = Number(process.argv[2]);
const commands = JSON.parse(process.argv[3]);
if (!Number.isInteger(runs) || runs < 1 || !Array.isArray(commands) || commands.length === 0) {
  process.stderr.write('usage: node bench/spawn-timer.mjs RUNS \'[["-e", ""], ["bin/ctl.js", "--help"]]\'\n');
  process.exit(2);
}

/** CPU time of the children waited for so far, in ms (cutime + cstime); undefined where /proc is missing. */
const childrenCpu = () => {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // fields 16 and 17 of stat(5), USER_HZ = 100
  } catch {
    return undefined;
  }
};

/**
 * Variables that change what Node does before any measured code runs. NODE_EXTRA_CA_CERTS makes every process
 * parse the whole root certificate store at start (35 ms where `node -e ''` takes 20 ms on a 2-core machine: the
 * bench's baseline once read 52 ms for that reason), and NODE_OPTIONS can preload modules. Added to both sides of a
 * ratio they flatten it, so the children run without them.
 */
const NODE_START = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'NODE_V8_COVERAGE', 'NODE_DEBUG', 'NODE_DEBUG_NATIVE'];
const unset = NODE_START.filter((name) => process.env[name] !== undefined);
const baseEnv = { ...process.env };
for (const name of unset) delete baseEnv[name];

const once = (command) => {
  const args = Array.isArray(command) ? command : command.args;
  const env = Array.isArray(command) || !command.env ? baseEnv : { ...baseEnv, ...command.env };
  const cpu = childrenCpu();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: 'ignore', env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return { ms, cpu: cpu === undefined ? undefined : childrenCpu() - cpu };
};

for (const args of commands) once(args); // warm the file cache
const times = commands.map(() => []);
const cpu = commands.map(() => 0);
for (let i = 0; i < runs; i++) {
  commands.forEach((args, j) => {
    const t = once(args);
    times[j].push(t.ms);
    cpu[j] += t.cpu ?? Number.NaN;
  });
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const round = (ms) => Math.round(ms * 100) / 100;
const out = { runs, medians: times.map((t) => round(median(t))) };
if (cpu.every(Number.isFinite)) out.cpu = cpu.map((c) => round(c / runs));
out.unset = unset;
process.stdout.write(`${JSON.stringify(out)}\n`);
