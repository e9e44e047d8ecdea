// The top frames of a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --throughput-only --cpu-profile DIR`):
// self time by function, and the share of samples under each of our own modules' functions (inclusive).
//
//   node --import tsx bench/profile-top.ts FILE.cpuprofile [COUNT]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const [file, countArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node --import tsx bench/profile-top.ts FILE.cpuprofile [COUNT]');
  process.exit(2);
}
const count = Number(countArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const frameName = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${basename(url)}:${lineNumber + 1}` : ''}`.trim();
};
// Idle and GC are shown apart: the share of the rest is what a request costs.
const idle = new Set(['(idle)', '(program)', '(garbage collector)']);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
for (const sample of profile.samples) {
  const leaf = byId.get(sample)!;
  const name = frameName(leaf);
  self.set(name, (self.get(name) ?? 0) + 1);
  if (idle.has(leaf.callFrame.functionName)) continue;
  busy++;
  // Each function counted once per sample, however often it recurs on the stack.
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)!;
    if (!frame.callFrame.url.includes('/dist/') && !frame.callFrame.url.includes('/src/')) continue;
    const n = frameName(frame);
    if (!seen.has(n)) inclusive.set(n, (inclusive.get(n) ?? 0) + 1);
    seen.add(n);
  }
}

const total = profile.samples.length;
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
const top = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
console.log(`${total} samples, ${pct(busy, total)} busy (not idle, program or GC)`);
for (const name of idle) console.log(`  ${name}: ${pct(self.get(name) ?? 0, total)}`);
console.log('\n| self (of busy) | function |\n|---|---|');
const busySelf = new Map([...self].filter(([name]) => !idle.has(name.split(' ')[0])));
for (const [name, n] of top(busySelf)) console.log(`| ${pct(n, busy)} | ${name} |`);
console.log('\n| inclusive (of busy) | our function |\n|---|---|');
for (const [name, n] of top(inclusive)) console.log(`| ${pct(n, busy)} | ${name} |`);
