// Hooks run in the order of their phases (model/behaviour.ts, HOOK_PHASES), whatever order the modules are found in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelModule } from './model/behaviour.js';
import { buildRoutes } from './registry.js';
import type { Runtime, Write, WriteHooks } from './runtime.js';

const WRITE = { verb: 'patch', values: {}, now: '2026-01-01T00:00:00.000Z', id: 'x' } as Write & { id: string };

function recording(calls: string[], name: string): WriteHooks {
  return {
    async beforeWrite(_rt, write) {
      calls.push(`before ${name}`);
      return { ...write.values, [name]: true };
    },
    async afterWrite(_rt, write) {
      calls.push(`after ${name} sees ${Object.keys(write.values).join(',')}`);
    },
  };
}

describe('the registry', () => {
  it("runs a resource's own hooks first, then each phase of consequences in its documented order", async () => {
    const calls: string[] = [];
    const models: ModelModule[] = [
      { consequences: { phase: 'posture-sessions', hooks: { service: recording(calls, 'posture') } } },
      { consequences: { phase: 'sessions', hooks: { service: recording(calls, 'sessions') } } },
      { model: { resource: 'service', hooks: recording(calls, 'own') } },
      { consequences: { phase: 'service-updates', hooks: { service: recording(calls, 'stamps') } } },
    ];
    const hooks = buildRoutes({} as Runtime, { models, adapters: [] }).hooks('service');
    const values = await hooks.beforeWrite!({} as Runtime, WRITE);
    await hooks.afterWrite!({} as Runtime, { ...WRITE, values: values! });
    assert.deepEqual(calls, [
      'before own',
      'before sessions',
      'before stamps',
      'before posture',
      'after own sees own,sessions,stamps,posture',
      'after sessions sees own,sessions,stamps,posture',
      'after stamps sees own,sessions,stamps,posture',
      'after posture sees own,sessions,stamps,posture',
    ]);
  });

  it('refuses two sets of hooks for one resource in one phase (their order would be undefined)', () => {
    const models: ModelModule[] = [
      { model: { resource: 'service', hooks: {} } },
      { model: { resource: 'service', hooks: {} } },
    ];
    assert.throws(
      () => buildRoutes({} as Runtime, { models, adapters: [] }),
      /two sets of hooks for resource 'service' in phase 'own'/,
    );
  });
});
