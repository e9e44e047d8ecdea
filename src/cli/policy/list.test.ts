import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../console/errors.js';
import { parse } from '../testing/parse.js';
import { testDeps } from '../testing/test-deps.js';
import { buildPolicyList, type PolicyListOptions, withCondition } from './list.js';

describe('ctl policy list KIND-OR-FILTER', () => {
  const given = async (argv: string[]) => {
    const runs: PolicyListOptions[] = [];
    await parse(
      buildPolicyList(testDeps(), async (o) => void runs.push(o)),
      argv,
    );
    return runs.map(({ kind, filter }) => ({ kind, filter }));
  };

  it('takes a kind, a filter, or both', async () => {
    assert.deepEqual(await given(['dial']), [{ kind: 'dial', filter: undefined }]);
    assert.deepEqual(await given(['name = "x"']), [{ kind: undefined, filter: 'name = "x"' }]);
    assert.deepEqual(await given(['isSystem']), [{ kind: undefined, filter: 'isSystem' }]);
    assert.deepEqual(await given(['bind', 'name = "x"']), [{ kind: 'bind', filter: 'name = "x"' }]);
  });

  it('refuses a misspelt kind as a usage error naming it, where it went to the controller as a filter', async () => {
    await assert.rejects(given(['dail']), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, "unknown policy kind 'dail'");
      assert.deepEqual(err.details, ["did you mean 'dial'?", 'kinds: dial, bind, router, service-router']);
      return true;
    });
    // With a filter too, the kind is read as given, and the run refuses it in the same words, before any request.
    await assert.rejects(parse(buildPolicyList(testDeps()), ['dail', 'name = "x"']), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, "unknown policy kind 'dail'");
      assert.deepEqual(err.details, ["did you mean 'dial'?", 'kinds: dial, bind, router, service-router']);
      return true;
    });
  });
});

// `ctl policy list dial '<filter>'` narrows the user's filter to one kind: the kind's condition must go before any
// `sort by`, `skip` or `limit` (ZitiQL takes those last only), never inside a quoted value.
describe('withCondition', () => {
  const kind = 'type = "Dial"';

  it('is the condition alone without a filter', () => {
    assert.equal(withCondition(undefined, kind), kind);
    assert.equal(withCondition('  ', kind), kind);
  });

  it('joins a plain predicate with and, in parentheses (an or stays inside)', () => {
    assert.equal(withCondition('name = "a" or name = "b"', kind), 'type = "Dial" and (name = "a" or name = "b")');
  });

  it('puts the condition before sort by, skip and limit', () => {
    assert.equal(
      withCondition('name contains "x" sort by name desc limit 5', kind),
      'type = "Dial" and (name contains "x") sort by name desc limit 5',
    );
    assert.equal(withCondition('skip 10 LIMIT none', kind), 'type = "Dial" skip 10 LIMIT none');
    assert.equal(withCondition('sort  by name', kind), 'type = "Dial" sort  by name');
  });

  it('does not take those words inside quotes or inside a longer word for the suffix', () => {
    assert.equal(withCondition('name = "x limit 3"', kind), 'type = "Dial" and (name = "x limit 3")');
    assert.equal(withCondition('name = "say \\"skip 1\\""', kind), 'type = "Dial" and (name = "say \\"skip 1\\"")');
    assert.equal(withCondition('limited = true', kind), 'type = "Dial" and (limited = true)');
  });
});
