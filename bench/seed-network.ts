// Fills a store with a network at the scale issue 8 sets, through this checkout's `Store` (so the access index is
// built by the same code that keeps it while the controller runs), in a process of its own.
//
// Usage: node --import tsx bench/seed-network.ts LOCATION [SHAPE]
//   LOCATION  a SQLite file, or a postgres:// URL
//   SHAPE     mixed (the default) or broad
// Prints {"seconds": ..., "routers": ...}.
//
// The mix: 10,000 identities and 10,000 services with two of 200 attributes each (so an attribute selects about
// 100 entities), 100 edge routers, 1,000 service policies (AnyOf and AllOf over #attributes, @id lists, mixed
// ones, and a few #all on either side), 100 edge router policies and 100 service edge router policies.
// The broad shape makes one service policy in ten give `#all` identities the services of one attribute (about
// 100), so that every identity reaches thousands of services through a hundred policies.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Store } from '../src/controller/store/store.js';
import { settle } from './pg-database.js';

export const SCALE = {
  identities: 10_000,
  services: 10_000,
  routers: 100,
  servicePolicies: 1_000,
  routerPolicies: 100,
};
const SHAPES = ['mixed', 'broad'];
const ATTRIBUTES = 200;

const [location, shape = 'mixed'] = process.argv.slice(2);
if (!location || !SHAPES.includes(shape)) {
  console.error(`usage: node --import tsx bench/seed-network.ts LOCATION [${SHAPES.join('|')}]`);
  process.exit(2);
}
const postgres = /^postgres(ql)?:/.test(location);
if (!postgres) mkdirSync(dirname(location), { recursive: true, mode: 0o700 });

// A small deterministic generator: the same network on every run and store.
let state = 42;
const random = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const pick = (n: number) => Math.floor(random() * n);
const attrs = (prefix: string) => [...new Set([`${prefix}-${pick(ATTRIBUTES)}`, `${prefix}-${pick(ATTRIBUTES)}`])];
const roles = (prefix: string, ids: string[], kind: number): string[] => {
  switch (kind) {
    case 0: // #all
      return ['#all'];
    case 1: // a few @ids
      return Array.from({ length: 5 }, () => `@${ids[pick(ids.length)]}`);
    case 2: // #attributes and @ids together
      return [`#${prefix}-${pick(ATTRIBUTES)}`, `@${ids[pick(ids.length)]}`];
    default: // one or two #attributes
      return [...new Set([`#${prefix}-${pick(ATTRIBUTES)}`, `#${prefix}-${pick(ATTRIBUTES)}`])];
  }
};
/** Which kind of role set: about 2% #all, 20% @ids, 10% mixed, the rest #attributes. */
const roleKind = () => {
  const r = random();
  return r < 0.02 ? 0 : r < 0.22 ? 1 : r < 0.32 ? 2 : 3;
};

const store = await Store.open(postgres ? { postgres: location } : { sqlite: location });
const now = new Date().toISOString();
const start = process.hrtime.bigint();
const insertAll = async (name: string, rows: Array<Record<string, unknown>>) => {
  const repo = store.repo(name);
  return store.tx(() =>
    repo.insertMany(
      rows.map((values) => ({ values })),
      { now },
    ),
  );
};
const identities = await insertAll(
  'identity',
  Array.from({ length: SCALE.identities }, (_, i) => ({
    name: `identity-${i}`,
    type: 'Default',
    isAdmin: false,
    roleAttributes: attrs('team'),
  })),
);
const services = await insertAll(
  'service',
  Array.from({ length: SCALE.services }, (_, i) => ({
    name: `service-${i}`,
    encryptionRequired: true,
    roleAttributes: attrs('app'),
  })),
);
const routers = await insertAll(
  'edge-router',
  Array.from({ length: SCALE.routers }, (_, i) => ({ name: `router-${i}`, roleAttributes: [`region-${i % 10}`] })),
);
/** In the broad shape, one policy in ten: every identity may dial the services of one attribute. */
const broad = (i: number) => shape === 'broad' && i % 10 === 5;
await insertAll(
  'service-policy',
  Array.from({ length: SCALE.servicePolicies }, (_, i) => ({
    name: `service-policy-${i}`,
    type: i % 3 === 0 ? 'Bind' : 'Dial',
    semantic: i % 2 === 0 ? 'AnyOf' : 'AllOf',
    identityRoles: broad(i) ? ['#all'] : roles('team', identities, roleKind()),
    serviceRoles: broad(i) ? [`#app-${pick(ATTRIBUTES)}`] : roles('app', services, roleKind()),
  })),
);
await insertAll(
  'edge-router-policy',
  Array.from({ length: SCALE.routerPolicies }, (_, i) => ({
    name: `edge-router-policy-${i}`,
    semantic: 'AnyOf',
    identityRoles: roles('team', identities, roleKind()),
    edgeRouterRoles: [`#region-${i % 10}`],
  })),
);
await insertAll(
  'service-edge-router-policy',
  Array.from({ length: SCALE.routerPolicies }, (_, i) => ({
    name: `serp-${i}`,
    semantic: 'AnyOf',
    serviceRoles: roles('app', services, roleKind()),
    edgeRouterRoles: [`#region-${i % 10}`],
  })),
);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
await store.close();
if (postgres) await settle(location);
console.log(JSON.stringify({ seconds, routers: routers.length }));
