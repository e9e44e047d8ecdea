import { fileKind } from '../testing/kinds.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Network } from './network.js';
import type { Change } from './plan.js';
import { planReplacements } from './replace.js';

/** A config type `t.v1`, its config `c` and an edge router whose configs list `c`, as the controller has them. */
const network: Network = {
  document: {
    configTypes: [{ name: 't.v1', target: 'service' }],
    configs: [{ name: 'c', configType: 't.v1', data: {} }],
    edgeRouters: [{ name: 'er', configs: ['c'] }],
  },
  ids: new Map([
    ['config-type', new Map([['t.v1', 't1']])],
    ['config', new Map([['c', 'c1']])],
    ['edge-router', new Map([['er', 'e1']])],
  ]),
  rows: new Map(),
};

function conflict(word: string, name: string, id: string, field: string, from: unknown, to: unknown): Change {
  const k = fileKind(word);
  const entity = { name, [field]: to };
  return { action: 'conflict', kind: k, name, id, entity, fields: { [field]: { from, to } }, reason: `${field} …` };
}

describe('planReplacements', () => {
  it('keeps a conflict whose holder by a refusing reference is blocked itself, all the way down', () => {
    const type = conflict('config-type', 't.v1', 't1', 'target', 'service', 'router');
    const config = conflict('config', 'c', 'c1', 'configType', 't.v1', 't.v2');
    const plan = planReplacements({ changes: [type, config] }, network);
    assert.deepEqual(
      plan.changes.map((c) => [c.action, c.name, c.reason]),
      [
        ['conflict', 't.v1', 'target …; held by config "c" (configType), which refuses its delete'],
        ['conflict', 'c', 'configType …; held by edge router "er" (configs), which refuses its delete'],
      ],
    );
  });

  it('deletes a replaced holder in the turn of what it holds, and keeps what the file leaves out', () => {
    const free: Network = { ...network, document: { ...network.document, edgeRouters: [] } };
    const type = conflict('config-type', 't.v1', 't1', 'target', 'service', 'router');
    const config = conflict('config', 'c', 'c1', 'configType', 't.v1', 't.v2');
    const [t, c] = planReplacements({ changes: [type, config] }, free).changes;
    assert.deepEqual(
      [t.action, t.deleteAt?.key, c.action, c.deleteAt?.key],
      ['replace', 'configTypes', 'replace', 'configTypes'],
    );
    assert.deepEqual(c.entity, { name: 'c', configType: 't.v2', data: {} });
  });
});
