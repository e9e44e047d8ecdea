// A field the catalogue types as text that holds another resource's id (a signer's enrollAuthPolicyId): the CLI
// takes it by name or id under the flag a reference gets, the flag it had as text still working.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from '@commander-js/extra-typings';
import { externalJwtSigner } from '../resources/external-jwt-signer.js';
import { addVerbs } from './nouns/verbs.js';
import { verbs } from './signer/index.js';
import { fakeApi, lookups } from './testing/fake-api.js';
import { parse } from './testing/parse.js';
import { testDeps } from './testing/test-deps.js';
import { withTextReferences } from './text-references.js';

const signers = [{ id: 's1', name: 'idp' }];
const policies = [{ id: 'p1', name: 'corp' }];

async function update(argv: string[], policyRef: string) {
  const routes = {
    ...lookups('external-jwt-signers', signers, ['idp']),
    ...lookups('auth-policies', policies, [policyRef]),
  };
  const api = fakeApi({ ...routes, 'PATCH /external-jwt-signers/s1': {} });
  const noun = addVerbs(new Command('signer'), testDeps({ api }), 'external-jwt-signer', verbs, 'update');
  await parse(noun, ['update', 'idp', ...argv]);
  return api.calls.find((c) => c.method === 'PATCH')?.body;
}

describe('a text field holding an id, to the CLI', () => {
  it("is a reference in the signer's view, and the catalogue's own field stays text", () => {
    const view = withTextReferences(externalJwtSigner);
    assert.deepEqual(view.fields.enrollAuthPolicyId.type, { kind: 'ref', resource: 'auth-policy' });
    assert.equal(externalJwtSigner.fields.enrollAuthPolicyId.type.kind, 'string');
    assert.equal(withTextReferences(externalJwtSigner), view, 'made once');
  });

  it('takes the auth policy by name or id with --enroll-auth-policy, and the old --enroll-auth-policy-id', async () => {
    assert.deepEqual(await update(['--enroll-auth-policy', 'corp'], 'corp'), { enrollAuthPolicyId: 'p1' });
    assert.deepEqual(await update(['--enroll-auth-policy', 'p1'], 'p1'), { enrollAuthPolicyId: 'p1' });
    assert.deepEqual(await update(['--enroll-auth-policy-id', 'corp'], 'corp'), { enrollAuthPolicyId: 'p1' });
  });
});
