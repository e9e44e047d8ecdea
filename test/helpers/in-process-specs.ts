/**
 * For in-process tests: checks a response against OpenZiti's Swagger document and against the document the
 * controller itself serves (/specs/{id}/spec), as the HTTPS helper does for end-to-end tests.
 */
import type { TestApp } from './in-process.js';
import { compileServedSpec, validateServedResponse, type ServedSpec } from './served-spec.js';
import { validateResponse, type ApiName } from './spec.js';

const served = new WeakMap<TestApp, Partial<Record<ApiName, ServedSpec>>>();

async function servedSpec(t: TestApp, api: ApiName): Promise<ServedSpec> {
  const specs = served.get(t) ?? {};
  served.set(t, specs);
  if (!specs[api]) {
    const id = api === 'management' ? 'edge-management' : 'edge-client';
    const res = await t.anonymous.request('GET', `/edge/${api}/v1/specs/${id}/spec`);
    specs[api] = compileServedSpec(api, res.body);
  }
  return specs[api]!;
}

export async function checkResponse(
  t: TestApp,
  api: ApiName,
  method: string,
  path: string,
  status: number,
  body: unknown,
): Promise<void> {
  validateResponse(api, method, path, status, body);
  validateServedResponse(await servedSpec(t, api), method, path, status, body);
}
