// What --prune may not delete: what an entity the run keeps names by a reference the controller refuses the delete
// over, read from the rows as the controller serves them (its own rows included).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FileEntity } from './document.js';
import { breakCycle } from './forward.js';
import { holderKinds, refuseHeldDeletes } from './held.js';
import type { Declaration } from './input.js';
import { fileKind } from '../testing/kinds.js';
import type { Kind } from './kinds.js';
import type { Network } from './network.js';
import { planChanges } from './plan.js';

const signers = fileKind('external-jwt-signer');
const policies = fileKind('auth-policy');
const identities = fileKind('identity');
const configTypes = fileKind('config-type');
const services = fileKind('service');

type Rows = Record<string, Record<string, unknown>[]>;

/**
 * The controller: its rows by resource. The document holds each row of `declared` kinds as the file states it (by
 * name: the tests' rows name by id only where a reference is checked, so names are all they need), and ids by name.
 */
function network(rows: Rows, declared: readonly Kind[]): Network {
  const document: Record<string, FileEntity[]> = {};
  for (const k of declared) {
    const own = (rows[k.def.name] ?? []).filter((r) => !k.isOwnedByController?.(r));
    document[k.key] = own.map((r) => ({ name: String(r.name) }));
  }
  const ids = new Map(
    Object.entries(rows).map(([resource, list]) => [
      resource,
      new Map(list.map((r) => [String(r.name), String(r.id)])),
    ]),
  );
  return { document, ids, rows: new Map(Object.entries(rows)) };
}

function declaration(kinds: readonly Kind[], entities: Array<[Kind, Record<string, unknown>]> = []): Declaration {
  return {
    kinds: new Set(kinds),
    entities: entities.map(([k, entity]) => ({ kind: k, entity: entity as FileEntity, file: 'net.yaml' })),
    notes: [],
  };
}

/** The plan --prune makes, checked as prepare checks it. */
function pruned(d: Declaration, n: Network) {
  const plan = breakCycle(planChanges(d, n, true), n);
  refuseHeldDeletes(plan, n);
  return plan.changes.map((c) => `${c.action} ${c.kind.key} ${c.name}`);
}

const corp = { id: 'p1', name: 'corp' };
const laptop = { id: 'i1', name: 'laptop', authPolicyId: 'p1', type: { name: 'User' } };

describe('--prune refuses to delete what a kept entity names', () => {
  it('refuses a policy a kept identity logs in with, and says which and how to go on', () => {
    const n = network({ 'auth-policy': [corp], identity: [laptop] }, [policies]);
    assert.throws(
      () => pruned(declaration([policies]), n),
      (err: Error & { details?: string[] }) => {
        assert.equal(err.message, 'identity "laptop": authPolicy names auth policy "corp", which --prune deletes');
        assert.match(
          String(err.details),
          /change the authPolicy of the identity first .* or declare auth policy "corp"/,
        );
        return true;
      },
    );
  });

  it('deletes it where the holder is deleted too, or the file gives the holder another one first', () => {
    const both = network({ 'auth-policy': [corp], identity: [laptop] }, [policies, identities]);
    assert.deepEqual(pruned(declaration([policies, identities]), both), [
      'delete identities laptop',
      'delete authPolicies corp',
    ]);
    const moved = declaration([policies, identities], [[identities, { name: 'laptop', authPolicy: 'Default' }]]);
    const withDefault = network(
      { 'auth-policy': [corp, { id: 'default', name: 'Default', isSystem: true }], identity: [laptop] },
      [policies, identities],
    );
    assert.deepEqual(pruned(moved, withDefault), ['update identities laptop', 'delete authPolicies corp']);
  });

  it("refuses what the controller's own rows name: the default auth policy's allowed signers", () => {
    const system = {
      id: 'default',
      name: 'Default',
      isSystem: true,
      primary: { extJwt: { allowed: true, allowedSigners: ['s1'] } },
    };
    const n = network({ 'external-jwt-signer': [{ id: 's1', name: 'idp' }], 'auth-policy': [system] }, [signers]);
    assert.throws(
      () => pruned(declaration([signers]), n),
      /auth policy "Default": primary\.extJwt\.allowedSigners names external JWT signer "idp", which --prune/,
    );
  });

  it('deletes a signer a kept policy allows where the file updates the object holding the list first', () => {
    const allowing = { id: 'p1', name: 'corp', primary: { extJwt: { allowed: true, allowedSigners: ['s1'] } } };
    const n = network({ 'external-jwt-signer': [{ id: 's1', name: 'idp' }], 'auth-policy': [allowing] }, [
      signers,
      policies,
    ]);
    const kept = declaration([signers, policies], [[policies, { name: 'corp' }]]);
    assert.throws(() => pruned(kept, n), /auth policy "corp": primary\.extJwt\.allowedSigners names external JWT/);
    const primary = { extJwt: { allowed: false, allowedSigners: [] } };
    const cleared = declaration([signers, policies], [[policies, { name: 'corp', primary }]]);
    assert.deepEqual(pruned(cleared, n), ['update authPolicies corp', 'delete externalJwtSigners idp']);
  });

  it('refuses a policy that a signer the run keeps names as the controller has it', () => {
    const idp = { id: 's1', name: 'idp', enrollAuthPolicyId: 'p1' };
    const n = network({ 'external-jwt-signer': [idp], 'auth-policy': [corp] }, [signers, policies]);
    const message = /external JWT signer "idp": enrollAuthPolicy names auth policy "corp", which --prune deletes$/;
    assert.throws(() => pruned(declaration([signers, policies], [[signers, { name: 'idp' }]]), n), message);
    assert.throws(() => pruned(declaration([policies]), n), message);
  });

  it('deletes what is named only by a role or a reference that clears: a service keeps its configs by id', () => {
    const n = network(
      {
        'config-type': [{ id: 't1', name: 'web.v1' }],
        config: [{ id: 'c1', name: 'web', configTypeId: 't1' }],
        service: [{ id: 'v1', name: 'api', configs: ['c1'] }],
      },
      [configTypes],
    );
    assert.throws(() => pruned(declaration([configTypes]), n), /config "web": configType names config type "web\.v1"/);
    const configs = fileKind('config');
    const withConfigs = network(
      {
        config: [{ id: 'c1', name: 'web', configTypeId: 't1' }],
        service: [{ id: 'v1', name: 'api', configs: ['c1'] }],
      },
      [configs],
    );
    assert.deepEqual(pruned(declaration([configs]), withConfigs), ['delete configs web']);
  });

  it("holds an edge router's configs once, as its own kind's, though the transit routers' list serves it too", () => {
    const link = { id: 'c1', name: 'link', configTypeId: 't1' };
    const er1 = { id: 'r1', name: 'er1', configs: ['c1'] };
    const rows = { config: [link], 'edge-router': [er1], 'transit-router': [er1] };
    const both = network(rows, [fileKind('config'), fileKind('edge-router')]);
    assert.deepEqual(pruned(declaration([fileKind('config'), fileKind('edge-router')]), both), [
      'delete edgeRouters er1',
      'delete configs link',
    ]);
    // The file stating the router's configs as it has them, as the controller does, then without the config.
    both.document.edgeRouters = [{ name: 'er1', configs: ['link'] }];
    const cleared = declaration(
      [fileKind('config'), fileKind('edge-router')],
      [[fileKind('edge-router'), { name: 'er1', configs: [] }]],
    );
    assert.deepEqual(pruned(cleared, both), ['update edgeRouters er1', 'delete configs link']);
    const kept = network(rows, [fileKind('config')]);
    assert.throws(
      () => pruned(declaration([fileKind('config')]), kept),
      /^UsageError: edge router "er1": configs names config "link"/,
    );
  });

  it("deletes a policy a router's identity uses with the router, which takes its identity with it", () => {
    const router = { id: 'r1', name: 'er1' };
    const identity = { id: 'r1', name: 'er1', type: { name: 'Router' }, authPolicyId: 'p1' };
    const rows = { 'auth-policy': [corp], 'edge-router': [router], identity: [identity] };
    const both = network(rows, [policies, fileKind('edge-router')]);
    assert.deepEqual(pruned(declaration([policies, fileKind('edge-router')]), both), [
      'delete edgeRouters er1',
      'delete authPolicies corp',
    ]);
    const kept = network(rows, [policies]);
    assert.throws(() => pruned(declaration([policies]), kept), /^UsageError: identity "er1": authPolicy names/);
  });

  it('deletes what a policy names by a role: the controller takes it out of the role set', () => {
    const dial = { id: 'sp1', name: 'dial', type: 'Dial', identityRoles: ['@i1'], serviceRoles: [] };
    const n = network({ identity: [{ id: 'i1', name: 'laptop' }], 'service-policy': [dial] }, [identities]);
    assert.deepEqual(pruned(declaration([identities]), n), ['delete identities laptop']);
  });

  it('reads, for a prune, every kind that can hold back what it deletes, nested references included', () => {
    const names = (resource: string, refusingOnly = true) =>
      holderKinds(new Set([resource]), { refusingOnly }).map((k) => k.key);
    assert.deepEqual(names('external-jwt-signer'), ['authPolicies']);
    assert.deepEqual(names('auth-policy'), ['externalJwtSigners', 'identities']);
    assert.deepEqual(names('config'), ['edgeRouters', 'transitRouters']);
    assert.deepEqual(names('identity'), [], 'policies name identities by roles, which hold nothing back');
    assert.ok(names('identity', false).includes('servicePolicies'), 'what --replace re-points');
    assert.ok(names('config', false).includes(services.key), "a service's configs clear, and are re-pointed");
  });
});
