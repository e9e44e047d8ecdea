// The edge routers of a session: those both the identity's and the service's router lists allow, read from the
// catalogue's computed relations (none are declared yet in this branch, so the declarations are stand-ins here).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resource, type ResourceDef } from '../../resources/index.js';
import type { Runtime } from '../runtime.js';
import { sessionEdgeRouters } from './sessions.js';

const withRouters = (name: string, provider: string): ResourceDef => ({
  ...resource(name),
  relations: { ...resource(name).relations, 'edge-routers': { resource: 'edge-router', computed: provider, description: 'routers' } },
});

function fakeRuntime(lists: Record<string, string[]>, routers: Record<string, Record<string, unknown>>): Runtime {
  return {
    relation: async (provider: string, id: string) => lists[`${provider}:${id}`] ?? [],
    store: { repoFor: () => ({ findAll: async (where: { id: string[] }) => where.id.map((id) => ({ id })) }) },
    present: async (_def: ResourceDef, rows: Array<{ id: string }>) => rows.map((r) => routers[r.id]),
  } as unknown as Runtime;
}

describe('session edge routers', () => {
  const defs = { identity: withRouters('identity', 'identity-routers'), service: withRouters('service', 'service-routers') };
  const routers = {
    r1: { name: 'r1', cost: 5, noTraversal: false, disabled: false, isOnline: true, hostname: 'r1.example', supportedProtocols: { tls: 'tls:r1:3022' } },
    r2: { name: 'r2', cost: 0, noTraversal: true, disabled: true },
    r3: { name: 'r3' },
  };

  it('are the routers both lists allow, with the state the router read model gives', async () => {
    const rt = fakeRuntime({ 'identity-routers:i': ['r1', 'r2', 'r3'], 'service-routers:s': ['r2', 'r1'] }, routers);
    const out = await sessionEdgeRouters(rt, 'i', 's', defs);
    assert.deepEqual(out.map((r) => r.name), ['r1', 'r2']);
    assert.deepEqual(out[0], {
      name: 'r1',
      hostname: 'r1.example',
      isOnline: true,
      cost: 5,
      noTraversal: false,
      disabled: false,
      syncStatus: 'SYNC_UNKNOWN',
      supportedProtocols: { tls: 'tls:r1:3022' },
      urls: { tls: 'tls:r1:3022' },
    });
    assert.deepEqual(out[1], { name: 'r2', hostname: '', isOnline: false, cost: 0, noTraversal: true, disabled: true, syncStatus: 'SYNC_UNKNOWN', supportedProtocols: {}, urls: {} });
  });

  it('are none when either side allows none, or when the relations are not declared', async () => {
    const rt = fakeRuntime({ 'identity-routers:i': ['r1'], 'service-routers:s': ['r3'] }, routers);
    assert.deepEqual(await sessionEdgeRouters(rt, 'i', 's', defs), []);
    assert.deepEqual(await sessionEdgeRouters(rt, 'i', 's', { identity: resource('identity'), service: resource('service') }), []);
  });
});
