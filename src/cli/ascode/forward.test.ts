import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeApi } from '../testing/fake-api.js';
import type { FileEntity } from './document.js';
import { breakCycle } from './forward.js';
import type { Declaration } from './input.js';
import { fileKind } from '../testing/kinds.js';
import type { Kind } from './kinds.js';
import type { Network } from './network.js';
import { planChanges } from './plan.js';
import { planLines } from './present.js';
import { planReplacements } from './replace.js';
import { applyPlan } from './write.js';

const signers = fileKind('external-jwt-signer');
const policies = fileKind('auth-policy');

const idp = {
  name: 'idp',
  enabled: true,
  issuer: 'https://idp.example',
  audience: 'ziti',
  jwksEndpoint: 'https://idp.example/jwks',
  enrollToCertEnabled: false,
  enrollToTokenEnabled: true,
  enrollAuthPolicy: 'corp',
};
/** An auth policy that lets idp's tokens log in: the signer names it, and it names the signer. */
const corp = {
  name: 'corp',
  primary: { extJwt: { allowed: true, allowedSigners: ['idp'] } },
  secondary: { requireTotp: false },
};

function declaration(entities: Array<[Kind, Record<string, unknown>]>): Declaration {
  return {
    kinds: new Set(entities.map(([k]) => k)),
    entities: entities.map(([k, entity]) => ({ kind: k, entity: entity as FileEntity, file: 'net.yaml' })),
    notes: [],
  };
}

/** The controller's network: its entities by kind key, and the ids of those and of the built-in Default policy. */
function network(document: Record<string, FileEntity[]>, ids: Array<[string, string, string]> = []): Network {
  const byResource = new Map<string, Map<string, string>>([['auth-policy', new Map([['Default', 'default']])]]);
  for (const [resource, name, id] of ids)
    byResource.set(resource, (byResource.get(resource) ?? new Map()).set(name, id));
  return { document, ids: byResource, rows: new Map() };
}

/** The controller with idp (s1) and corp (p1), naming each other as the controller has them. */
const withIdpAndCorp = () =>
  network({ externalJwtSigners: [idp], authPolicies: [corp as FileEntity] }, [
    ['external-jwt-signer', 'idp', 's1'],
    ['auth-policy', 'corp', 'p1'],
  ]);

const plan = (d: Declaration, n: Network, prune = false) => breakCycle(planChanges(d, n, prune), n);
const summary = (p: ReturnType<typeof plan>) => p.changes.map((c) => `${c.action} ${c.kind.key} ${c.name}`);

describe('a signer and its enrollment auth policy, which names the signer', () => {
  it('creates the signer without the policy and the enrollment checked against it, then updates it', () => {
    const p = plan(
      declaration([
        [signers, idp],
        [policies, corp],
      ]),
      network({}),
    );
    assert.deepEqual(summary(p), [
      'create externalJwtSigners idp',
      'create authPolicies corp',
      'update externalJwtSigners idp',
    ]);
    const [create, , update] = p.changes;
    assert.equal(create.entity?.enrollAuthPolicy, undefined);
    assert.equal(create.entity?.enrollToTokenEnabled, undefined);
    assert.equal(create.entity?.enrollToCertEnabled, false, 'an enrollment it leaves off is created as it is');
    assert.equal(update.after, policies);
    assert.deepEqual(update.fields, { enrollAuthPolicy: { to: 'corp' }, enrollToTokenEnabled: { to: true } });
    assert.deepEqual(planLines(p), [
      '+ create external JWT signer "idp" (enrollAuthPolicy, enrollToTokenEnabled by an update after auth policy ' +
        '"corp" is written)',
      '+ create auth policy "corp"',
      '~ update external JWT signer "idp": enrollAuthPolicy (unset) → "corp", enrollToTokenEnabled (unset) → true ' +
        '(after auth policy "corp" is written)',
      'Plan: 2 to create, 1 to update, 0 to delete, 0 conflicts.',
    ]);
    assert.deepEqual(summary(planReplacements(p, network({}))), summary(p), '--replace keeps the update after');
  });

  it('moves an update naming a policy the run creates after it, and leaves one naming an existing policy', () => {
    const current = { ...idp, enrollAuthPolicy: 'Default', enrollToTokenEnabled: false };
    const n = network({ externalJwtSigners: [current] }, [['external-jwt-signer', 'idp', 's1']]);
    const moved = plan(
      declaration([
        [signers, idp],
        [policies, corp],
      ]),
      n,
    );
    assert.deepEqual(summary(moved), ['create authPolicies corp', 'update externalJwtSigners idp']);
    assert.equal(moved.changes[1].after, policies);
    const existing = network({ externalJwtSigners: [current], authPolicies: [corp as FileEntity] }, [
      ['external-jwt-signer', 'idp', 's1'],
      ['auth-policy', 'corp', 'p1'],
    ]);
    const inTurn = plan(
      declaration([
        [signers, idp],
        [policies, corp],
      ]),
      existing,
    );
    assert.deepEqual(summary(inTurn), ['update externalJwtSigners idp']);
    assert.equal(inTurn.changes[0].after, undefined);
  });

  it('creates the signer as it is when its policy is on the controller and unchanged', () => {
    const n = network({ authPolicies: [corp as FileEntity] }, [['auth-policy', 'corp', 'p1']]);
    const p = plan(
      declaration([
        [signers, idp],
        [policies, corp],
      ]),
      n,
    );
    assert.deepEqual(summary(p), ['create externalJwtSigners idp']);
    assert.equal(p.changes[0].entity?.enrollAuthPolicy, 'corp');
  });

  it('with --prune, clears the signer before deleting the policy it names, then deletes the signer', () => {
    const n = withIdpAndCorp();
    const p = plan(declaration([[signers, { ...idp, name: 'other', enrollAuthPolicy: 'Default' }]]), n, true);
    const stays = ['create externalJwtSigners other', 'delete externalJwtSigners idp'];
    assert.deepEqual(summary(p), stays, 'the signer of a policy that stays is deleted as it is');
    const withPolicies: Declaration = { ...declaration([]), kinds: new Set([signers, policies]) };
    const both = plan(withPolicies, n, true);
    assert.deepEqual(summary(both), [
      'update externalJwtSigners idp',
      'delete authPolicies corp',
      'delete externalJwtSigners idp',
    ]);
    assert.deepEqual(both.changes[0].fields, { enrollAuthPolicy: { from: 'corp', to: null } });
    assert.equal(
      planLines(both)[0],
      '~ update external JWT signer "idp": enrollAuthPolicy "corp" → null (so that ' +
        'auth policy "corp" can be deleted)',
    );
  });

  it('refuses, with --prune, a kept signer naming the policy it would delete', () => {
    const n = withIdpAndCorp();
    const kept: Declaration = { ...declaration([[signers, idp]]), kinds: new Set([signers, policies]) };
    assert.throws(
      () => plan(kept, n, true),
      /external JWT signer "idp": enrollAuthPolicy names auth policy "corp", which --prune deletes: the file/,
    );
    assert.equal(plan(kept, n, false).changes.length, 0, 'without --prune the policy stays');
  });

  it('refuses, with --prune, a signer the file keeps a policy naming in its allowed signers', () => {
    const n = withIdpAndCorp();
    // The file declares signers, without idp, and keeps corp, whose allowed signers name idp.
    const kept: Declaration = { ...declaration([[policies, corp]]), kinds: new Set([signers, policies]) };
    assert.throws(
      () => plan(kept, n, true),
      /auth policy "corp": primary\.extJwt\.allowedSigners names external JWT signer "idp", which --prune deletes/,
    );
    assert.equal(plan(kept, n, false).changes.length, 0, 'without --prune the signer stays');
  });

  it('writes the signer, then the policy naming its new id, then the signer naming the policy', async () => {
    const n = network({});
    const p = plan(
      declaration([
        [signers, idp],
        [policies, corp],
      ]),
      n,
    );
    const api = fakeApi({
      'POST /external-jwt-signers': { id: 's9' },
      'POST /auth-policies': { id: 'p9' },
      'PATCH /external-jwt-signers/s9': {},
    });
    const outcome = await applyPlan(api, p, n);
    assert.equal(outcome.failed.length, 0);
    assert.deepEqual(
      api.calls.map((c) => [`${c.method} ${c.path}`, c.body]),
      [
        ['POST /external-jwt-signers', withoutForward(idp)],
        ['POST /auth-policies', { ...corp, primary: { extJwt: { allowed: true, allowedSigners: ['s9'] } } }],
        ['PATCH /external-jwt-signers/s9', { enrollAuthPolicyId: 'p9', enrollToTokenEnabled: true }],
      ],
    );
  });
});

function withoutForward(entity: Record<string, unknown>): Record<string, unknown> {
  const { enrollAuthPolicy: _policy, enrollToTokenEnabled: _token, ...rest } = entity;
  return rest;
}
