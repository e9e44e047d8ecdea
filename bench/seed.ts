// Fills a store with identities, in one transaction through that checkout's own `Store` (so that an older build
// gets rows in its own schema), in a process of its own. Works with the synchronous store of older commits
// (`Store.open(file)`) and the asynchronous one (`Store.open({sqlite} | {postgres})`).
//
// Usage: node --import tsx bench/seed.ts ROOT LOCATION COUNT
//   ROOT      the checkout whose src/controller/store/store.ts to use
//   LOCATION  a SQLite file, or a postgres:// URL
// Prints {"seconds": ...} (the transaction only, not opening the store nor settling a PostgreSQL database after).
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { settle } from './pg-database.js';

const [root, location, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!root || !location || !Number.isInteger(count)) {
  console.error('usage: node --import tsx bench/seed.ts ROOT LOCATION COUNT');
  process.exit(2);
}

const attrs = ['sales', 'emea', 'finance', 'apac', 'ops'];
const identity = (i: number) => ({
  name: `identity-${i}`,
  type: 'Default',
  isAdmin: false,
  roleAttributes: [attrs[i % 5], attrs[(i * 7) % 5]],
});

// The store's API changed shape between releases: typed loosely here on purpose.
const mod: any = await import(pathToFileURL(join(root, 'src/controller/store/store.ts')).href);
const asynchronous = typeof mod.parseStoreLocation === 'function';
const postgres = /^postgres(ql)?:/.test(location);
if (postgres && !asynchronous) throw new Error(`${root} has no PostgreSQL store`);
if (!postgres) mkdirSync(dirname(location), { recursive: true, mode: 0o700 });

const now = new Date().toISOString();
let seconds: number;
if (asynchronous) {
  const store = await mod.Store.open(postgres ? { postgres: location } : { sqlite: location });
  const repo = store.repo('identity');
  const start = process.hrtime.bigint();
  await store.tx(async () => {
    // Releases before insertMany inserted one row per call.
    const rows = Array.from({ length: count }, (_, i) => ({ values: identity(i) }));
    if (typeof repo.insertMany === 'function') await repo.insertMany(rows, { now });
    else for (let i = 0; i < count; i++) await repo.insert(identity(i), { now });
  });
  seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await store.close();
} else {
  const store = mod.Store.open(location);
  const repo = store.repo('identity');
  const start = process.hrtime.bigint();
  store.tx(() => {
    for (let i = 0; i < count; i++) repo.insert(identity(i), { now });
  });
  seconds = Number(process.hrtime.bigint() - start) / 1e9;
  store.close();
}
if (postgres) await settle(location);
console.log(JSON.stringify({ seconds }));
