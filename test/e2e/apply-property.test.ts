// A property of `ctl apply` through the built CLI against a real controller: for a sequence of random networks
// (services, identities and service policies, with names drawn from a small pool so that each file is a random edit
// of the one before: entities added, changed and dropped), `apply --prune --replace --yes` leaves the export
// equal to the file for every field the file states, with exactly the file's entities, and a second apply is a no-op.
// A service's encryptionRequired, fixed after create, is drawn at random too: with --replace such a service is deleted
// and created again, and the policies that name it must still name it after.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { useCliFixture } from '../helpers/cli-fixture.js';

const f = useCliFixture('apply-property');

const ATTRIBUTES = ['a', 'b', 'c', 'd'];
const attributes = fc.uniqueArray(fc.constantFrom(...ATTRIBUTES), { maxLength: 3 });
const pool = (prefix: string) => [0, 1, 2, 3, 4].map((i) => `${prefix}-${i}`);
const names = (prefix: string) => fc.uniqueArray(fc.constantFrom(...pool(prefix)), { maxLength: 4 });
/** A role set over the attributes and the given entities (`@name`). */
const roles = (entities: string[]) =>
  fc.uniqueArray(fc.constantFrom(...ATTRIBUTES.map((a) => `#${a}`), ...entities.map((e) => `@${e}`)), { maxLength: 3 });

type Entity = Record<string, unknown> & { name: string };

const networkArb = fc.record({ services: names('svc'), identities: names('id'), policies: names('sp') }).chain((n) =>
  fc.record({
    services: fc.tuple(
      ...n.services.map((name) =>
        fc.record({
          name: fc.constant(name),
          encryptionRequired: fc.boolean(),
          roleAttributes: attributes,
        }),
      ),
    ),
    identities: fc.tuple(
      ...n.identities.map((name) =>
        fc.record({
          name: fc.constant(name),
          type: fc.constant('User'),
          isAdmin: fc.boolean(),
          roleAttributes: attributes,
        }),
      ),
    ),
    servicePolicies: fc.tuple(
      ...n.policies.map((name) =>
        fc.record({
          name: fc.constant(name),
          type: fc.constantFrom('Dial', 'Bind'),
          semantic: fc.constantFrom('AllOf', 'AnyOf'),
          identityRoles: roles(n.identities),
          serviceRoles: roles(n.services),
        }),
      ),
    ),
  }),
);

const sorted = (v: unknown) => (Array.isArray(v) ? [...v].sort() : v);

describe('ctl apply, as a property', () => {
  it('makes the export equal the file, prunes and replaces to exactly its entities; then a no-op', async () => {
    const file = path.join(f.tmp, 'net.yaml');
    await fc.assert(
      fc.asyncProperty(networkArb, async (network) => {
        await writeFile(file, stringify(network));
        await f.cli.expect(0, ['apply', '-f', file, '--prune', '--replace', '--yes']);
        const exported = parse((await f.cli.expect(0, ['export', 'service', 'identity', 'service-policy'])).stdout);
        for (const key of ['services', 'identities', 'servicePolicies'] as const) {
          const wanted = network[key] as Entity[];
          const got = new Map((exported[key] as Entity[]).map((e) => [e.name, e]));
          assert.deepEqual([...got.keys()].sort(), wanted.map((e) => e.name).sort(), `${key}: exactly the file's`);
          for (const entity of wanted) {
            for (const [field, value] of Object.entries(entity)) {
              if (field === 'type') continue; // sent on create only: the controller keeps it as Default
              const actual = sorted(got.get(entity.name)?.[field] ?? []);
              assert.deepEqual(actual, sorted(value), `${key} ${entity.name}.${field}`);
            }
          }
        }
        const again = await f.cli.expect(0, ['apply', '-f', file, '--prune', '--yes']);
        assert.match(again.stderr, /No changes/);
      }),
      { numRuns: 12 },
    );
  });
});
