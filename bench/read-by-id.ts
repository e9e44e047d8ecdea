// What reading one identity with its read model (authenticators, enrollments, whether it has a session) costs on
// SQLite, in-process and in a loop: the statements of Store.readTogether and the rows decoded, as GET
// /identities/{id} reads them. The controller's CPU per request (`npm run bench -- --throughput-only`) is the figure
// that counts; this one shows the store's part of it without the network's noise. It asserts nothing.
//
// Usage: node --import tsx bench/read-by-id.ts [READS] [--root DIR]
//   READS  reads per round (default 20000), five rounds
//   --root the checkout whose store to use (default: this one), e.g. a baseline made by bench/baseline.ts; run the
//          two one after the other, twice or more, and compare lines of the same sitting
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { root: { type: 'string' } } });
const reads = Number(positionals[0] ?? 20_000);
const root = flags.root ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
// Another checkout's Store: typed loosely on purpose, as bench/seed.ts does.
const { Store } = await import(pathToFileURL(path.join(root, 'src/controller/store/store.ts')).href);
const dir = mkdtempSync(path.join(os.tmpdir(), 'ctl-bench-read-by-id-'));
const store = await Store.open({ sqlite: path.join(dir, 'ctl.db') });
const now = new Date().toISOString();
const rows = Array.from({ length: 1000 }, (_, i) => ({
  values: { name: `identity-${i}`, type: 'Default', isAdmin: false, roleAttributes: ['sales', 'emea'] },
}));
let ids: string[] = [];
await store.tx(async () => {
  ids = await store.repo('identity').insertMany(rows, { now });
});
const id = ids[500];
// The lookups of model/resources/identity.ts's by-id read, bound to the id once made where the checkout can
// (`lookupOfValue`), as its controller does; made at every read before.
const repository = await import(pathToFileURL(path.join(root, 'src/controller/store/repository.ts')).href);
const lookupsOf = (value: string) => [
  store.repo('identity').findLookup(value),
  store
    .repo('authenticator')
    .lookup({ identityId: [value] }, { columns: ['identityId', 'method', 'username', 'fingerprint'] }),
  store
    .repo('enrollment')
    .lookup({ identityId: [value] }, { columns: ['identityId', 'method', 'token', 'jwt', 'expiresAt', 'caId'] }),
  store.repo('api-session').distinctLookup('identityId', { identityId: [value] }),
];
const bound: Array<(value: string) => unknown> | undefined = repository.lookupOfValue
  ? lookupsOf('').map(repository.lookupOfValue)
  : undefined;
const read = () => store.readTogether(bound ? bound.map((lookup) => lookup(id)) : lookupsOf(id));
const [row] = await read();
if (row?.name !== 'identity-500') throw new Error('the identity was not read back');
const perRead: number[] = [];
for (let round = 0; round < 5; round++) {
  const before = process.cpuUsage();
  for (let i = 0; i < reads; i++) await read();
  const used = process.cpuUsage(before);
  perRead.push((used.user + used.system) / reads);
}
await store.close();
rmSync(dir, { recursive: true, force: true });
const sorted = [...perRead].sort((a, b) => a - b);
console.log(
  `${root}: ${sorted[2].toFixed(1)} µs of CPU per read, median of 5 rounds ` +
    `(${perRead.map((us) => us.toFixed(1)).join(', ')}); load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);
