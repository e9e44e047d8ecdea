// A fuzzer derived from the documents the controller serves: every operation of both APIs gets paths with ids no
// entity could have, bodies with hostile values of each declared type (one at a time, the rest plausible), and
// lists get hostile filters and paging. Whatever the input, no answer is a 5xx and every answer is valid against
// OpenZiti's Swagger and the served document (the HTTP helper checks each). Fixed seed by default
// (CTL_FUZZ_SEED=n for another run); the request count is bounded so that a store's run takes seconds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SERVED_SPEC_PATHS } from '../helpers/served-spec.js';
import { BASE_PATHS, type ApiName, hasOperation } from '../helpers/spec.js';
import { type HttpHelper, type TestController, startTestController, storeUnderTest } from '../helpers/controller.js';
import {
  HOSTILE_FILTERS,
  HOSTILE_IDS,
  HOSTILE_PAGING,
  RawNumber,
  type Schema,
  declaredType,
  hostileValues,
  pick,
  plausible,
  resolve,
  seededRandom,
  toJsonText,
} from '../helpers/fuzz.js';

const SEED = Number(process.env.CTL_FUZZ_SEED ?? 20_261_127);
/** Per operation: hostile ids tried, hostile body values tried, hostile filters and paging tried. */
const IDS_PER_OPERATION = 3;
const BODIES_PER_OPERATION = 8;
const FILTERS_PER_LIST = 4;
const CONCURRENCY = 4;
/** Operations that would end the fuzzer's own session, so that every later request would only test a 401. */
const SKIPPED = new Set(['DELETE /current-api-session']);
/**
 * The one 5xx that does not depend on the input: PostgreSQL's backups are the database server's job, so a snapshot
 * is 501 there whatever is sent (docs/controller.md). Only that answer is let through, and only there.
 */
const NOT_IMPLEMENTED = new Map<string, string>(
  storeUnderTest() === 'postgres' ? [['POST /database/snapshot', 'SNAPSHOT_NOT_SUPPORTED']] : [],
);

interface FuzzRequest {
  api: ApiName;
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: string;
  /** An operation OpenZiti's documents lack (an extension): its answers must still be error envelopes. */
  unlisted?: boolean;
  /** The error code of the operation's input-independent 501 (NOT_IMPLEMENTED). */
  notImplemented?: string;
}

let ctl: TestController;
let admin: HttpHelper;

before(async () => {
  // A client budget the fuzzer cannot exhaust: 429s would only hide what it is looking for.
  ctl = await startTestController({ clientRateLimit: { burst: 1_000_000, perSecond: 1_000_000 } });
  admin = await ctl.admin();
});
after(() => ctl?.close());

/** The served document of an API (under its base path, as SERVED_SPEC_PATHS says). */
async function servedDocument(api: ApiName): Promise<any> {
  const res = await admin.get(SERVED_SPEC_PATHS[api].slice(BASE_PATHS[api].length), { api });
  assert.equal(res.status, 200);
  return res.body;
}

function requestsFor(api: ApiName, doc: any, random: () => number): FuzzRequest[] {
  const definitions: Record<string, Schema> = doc.definitions ?? {};
  const out: FuzzRequest[] = [];
  let n = 0;
  for (const [template, operations] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [verb, op] of Object.entries<any>(operations)) {
      const method = verb.toUpperCase();
      if (SKIPPED.has(`${method} ${template}`)) continue;
      const hasParams = template.includes('{');
      const withId = (id: string) => template.replace(/\{\w+\}/g, id);
      const paths = hasParams ? pick(HOSTILE_IDS, IDS_PER_OPERATION, random).map(withId) : [template];
      // An id that is well formed but unknown, so that the body is what gets checked.
      const bodyPath = withId('fuzz-unknown-id');
      const unlisted = !hasOperation(api, method, withId('x'));
      const notImplemented = NOT_IMPLEMENTED.get(`${method} ${template}`);
      const add = (r: Omit<FuzzRequest, 'api' | 'method'>) => out.push({ api, method, ...r, unlisted, notImplemented });
      for (const path of paths) add({ path, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }) });
      if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
        for (const body of hostileBodies(op, definitions, random, n++)) add({ path: bodyPath, body });
      }
      if (method === 'GET' && !hasParams) {
        const filters = pick(HOSTILE_FILTERS, FILTERS_PER_LIST, random);
        for (const filter of filters) add({ path: template, query: { filter } });
        for (const query of pick(HOSTILE_PAGING, 2, random)) add({ path: template, query });
      }
    }
  }
  return out;
}

/** Bodies of an operation: its declared body with one hostile value at a time, or hostile documents without one. */
function hostileBodies(op: any, definitions: Record<string, Schema>, random: () => number, n: number): string[] {
  const declared: Schema | undefined = resolve(op.parameters?.find((p: any) => p.in === 'body')?.schema, definitions);
  const properties = Object.entries(declared?.properties ?? {});
  const documents = ['1e309', '[]', '"\\u0000"', '{"__proto__": {"isAdmin": true}}'];
  if (properties.length === 0) {
    const huge = new RawNumber('1e309');
    const generic = { name: '\u0000', id: huge, username: 'x'.repeat(5000), password: [], code: huge, tags: { huge } };
    return [...documents, toJsonText(generic)];
  }
  const base = plausible(declared, definitions, n) as Record<string, unknown>;
  const hostile = ([name, schema]: [string, Schema]) =>
    hostileValues(declaredType(schema, definitions)).map((value) => [name, value] as const);
  const candidates = properties.flatMap(hostile);
  const bodies = pick(candidates, BODIES_PER_OPERATION, random).map(([name, v]) => toJsonText({ ...base, [name]: v }));
  return [...pick(documents, 1, random), ...bodies];
}

describe('fuzzing every served operation with hostile input', () => {
  it(`answers no 5xx and only spec-valid responses (seed ${SEED})`, async () => {
    const random = seededRandom(SEED);
    const requests: FuzzRequest[] = [];
    for (const api of ['management', 'client'] as const) {
      requests.push(...requestsFor(api, await servedDocument(api), random));
    }
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const r = requests[next++];
        try {
          const { api, query, body, unlisted, notImplemented } = r;
          const opts = { api, query, body, unlisted, allow5xx: Boolean(notImplemented) };
          const res = await admin.request(r.method, r.path, opts);
          if (res.status >= 500) assert.deepEqual([res.status, res.body.error.code], [501, notImplemented]);
        } catch (err) {
          const sent = `${JSON.stringify(r.query ?? {})} ${(r.body ?? '').slice(0, 120)}`;
          const request = `${r.method} ${r.api} ${r.path.slice(0, 80)} ${sent}`;
          failures.push(`${request}\n  ${(err as Error).message.slice(0, 400)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.ok(requests.length > 500, `every operation is exercised (${requests.length} requests)`);
    assert.deepEqual(failures, [], `${failures.length} of ${requests.length} requests failed`);
    // Still the same admin, still working: nothing the fuzzer sent broke the controller.
    assert.equal((await admin.get('/version', { api: 'client' })).status, 200);
  });
});
