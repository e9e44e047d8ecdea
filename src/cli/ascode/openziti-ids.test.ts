import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { readDeclaration } from './input.js';
import type { Network } from './network.js';
import { nameIdsOf } from './openziti-ids.js';

/** A controller with the built-in default auth policy and one of its own. */
const network: Network = {
  document: {},
  ids: new Map(),
  rows: new Map([
    [
      'auth-policy',
      [
        { id: 'default', name: 'Default' },
        { id: 'p1', name: 'corp' },
      ],
    ],
  ]),
};

describe("a signer's enrollAuthPolicyId in OpenZiti's export", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-openziti-ids-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const signer = (policyId: string) => ({
    name: 'idp',
    enabled: true,
    issuer: 'https://idp.example',
    audience: 'ziti',
    jwksEndpoint: 'https://idp.example/jwks',
    fingerprint: null,
    enrollAuthPolicyId: policyId,
  });
  const read = async (policyId: string) => {
    const file = path.join(dir, `${policyId}.json`);
    writeFileSync(file, JSON.stringify({ externalJwtSigners: [signer(policyId)] }));
    return readDeclaration([file]);
  };

  it('is read as the id of the auth policy on this controller, and named', async () => {
    for (const [id, name] of [
      ['default', 'Default'],
      ['p1', 'corp'],
    ]) {
      const declaration = await read(id);
      nameIdsOf(declaration, network);
      const { entity } = declaration.entities[0];
      assert.equal(entity.enrollAuthPolicy, name);
      assert.equal('enrollAuthPolicyId' in entity, false);
    }
  });

  it("refuses another controller's id, saying how to name the policy", async () => {
    const declaration = await read('x9');
    assert.throws(
      () => nameIdsOf(declaration, network),
      (err: unknown) => {
        assert.ok(err instanceof UsageError);
        assert.match(err.message, /external JWT signer "idp": enrollAuthPolicyId names auth policy id "x9", which/);
        assert.match(err.details[0], /name the auth policy instead, as enrollAuthPolicy: NAME/);
        return true;
      },
    );
  });
});
