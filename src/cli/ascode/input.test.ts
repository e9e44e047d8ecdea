import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { readDeclaration } from './input.js';

describe('reading a network file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ctl-input-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const refused = async (text: string): Promise<UsageError> => {
    const file = path.join(dir, 'net.yaml');
    writeFileSync(file, text);
    let caught: unknown;
    await readDeclaration([file]).catch((err: unknown) => (caught = err));
    assert.ok(caught instanceof UsageError, String(caught));
    return caught;
  };

  it('names the kind or field a misspelt one was meant to be, then every one', async () => {
    const kind = await refused('servics:\n  - name: web\n');
    assert.match(kind.message, /unknown kind 'servics'$/);
    assert.equal(kind.details[0], "did you mean 'services'?");
    assert.match(kind.details[1]!, /^kinds: .*\bservices\b/);
    const field = await refused('services:\n  - name: web\n    roleAtributes: [a]\n');
    assert.match(field.message, /service "web": unknown field 'roleAtributes'$/);
    assert.equal(field.details[0], "did you mean 'roleAttributes'?");
  });

  it("reads a file of ctl's export before it named the signer's auth policy as its own, the policy by id", async () => {
    const file = path.join(dir, 'earlier.yaml');
    writeFileSync(
      file,
      [
        'externalJwtSigners:',
        '  - name: idp',
        '    issuer: https://idp.example',
        '    enrollAuthPolicyId: 3kZt9aQ1',
        'servicePolicies:',
        '  - name: dial-web',
        '    type: Dial',
        '    postureCheckRoles: []',
        '',
      ].join('\n'),
    );
    const read = await readDeclaration([file]);
    assert.deepEqual(read.notes, [], 'not read as an OpenZiti export');
    const [signer, policy] = read.entities;
    assert.deepEqual(signer.entity, { name: 'idp', issuer: 'https://idp.example', enrollAuthPolicy: '3kZt9aQ1' });
    assert.deepEqual(signer.byId, ['enrollAuthPolicy']);
    // OpenZiti's export writes this list empty whatever the policy has; ctl's own file means it: no posture checks.
    assert.deepEqual(policy.entity.postureCheckRoles, []);
  });

  it('lists the known words alone when the unknown one is no typo of any', async () => {
    const kind = await refused('gadgets: []\n');
    assert.deepEqual(
      kind.details.map((d) => d.split(':')[0]),
      ['kinds'],
    );
  });
});
