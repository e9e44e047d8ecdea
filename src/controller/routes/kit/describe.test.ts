// One standard route shape: what standardRoute makes of a verb is what the generic routes serve.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resource } from '../../../resources/index.js';
import { Responses } from '../../server/responses.js';
import { answers, standardRoute } from './describe.js';

const terminator = resource('terminator');
const handler = () => ({ data: {} });

describe('standardRoute', () => {
  it('places each verb at its method and path, on the resource API, for admins', () => {
    const shape = (verb: Parameters<typeof standardRoute>[1]) => {
      const { method, path, api, access, takes } = standardRoute(terminator, verb, handler);
      return { method, path, api, access, takes };
    };
    const on = { api: 'management', access: 'admin' };
    const takes = (verb: string) => ({ takes: { resource: 'terminator', verb } });
    assert.deepEqual(shape('list'), { method: 'GET', path: '/terminators', ...on, takes: undefined });
    assert.deepEqual(shape('get'), { method: 'GET', path: '/terminators/{id}', ...on, takes: undefined });
    assert.deepEqual(shape('create'), { method: 'POST', path: '/terminators', ...on, ...takes('create') });
    assert.deepEqual(shape('replace'), { method: 'PUT', path: '/terminators/{id}', ...on, ...takes('replace') });
    assert.deepEqual(shape('patch'), { method: 'PATCH', path: '/terminators/{id}', ...on, ...takes('patch') });
    assert.deepEqual(shape('delete'), { method: 'DELETE', path: '/terminators/{id}', ...on, takes: undefined });
  });

  it('answers as the generic route of the verb does', () => {
    const r = new Responses({});
    const described = (verb: Parameters<typeof standardRoute>[1]) =>
      standardRoute(terminator, verb, handler).responds!(r);
    assert.deepEqual(described('list'), answers.list(terminator)(r));
    assert.deepEqual(described('get'), answers.detail(terminator)(r));
    assert.deepEqual(described('create'), answers.created(terminator)(r));
    assert.deepEqual(described('patch'), answers.updated(terminator)(r));
    assert.deepEqual(described('delete'), answers.deleted(terminator)(r));
  });

  it('serves elsewhere when asked: another base path, API or access', () => {
    const route = standardRoute(terminator, 'get', handler, { base: '/mine', api: 'both', access: 'session' });
    assert.deepEqual([route.path, route.api, route.access], ['/mine/{id}', 'both', 'session']);
  });
});
