// External JWT signers (wire-protocol section 7): management CRUD with the signer rules, and the client API's
// anonymous list that login pages use to offer "sign in with ...". Authentication with a signer's tokens
// (`method=ext-jwt`): src/controller/model/auth/ext-jwt.ts.
import { ApiError } from '../../../protocol/errors.js';
import { parseQuery } from '../../../protocol/zitiql/index.js';
import { CLIENT_VIEW_FIELDS } from '../../../resources/external-jwt-signer.js';
import { resource } from '../../../resources/index.js';
import { clientView, withoutServedBlanks } from '../../model/resources/external-jwt-signer.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { createResource, listMeta, updateResource } from '../kit/crud.js';
import { listParams } from '../kit/query.js';
import type { Responses, Success } from '../../server/responses.js';
import { readSchema, type JsonSchema } from '../../server/schemas.js';
import { standardRoute } from '../kit/describe.js';

const signer = resource('external-jwt-signer');
const CLIENT_SYMBOLS = new Set<string>([
  'id',
  'createdAt',
  'updatedAt',
  'name',
  'externalAuthUrl',
  'clientId',
  'audience',
  'targetToken',
]);

/** create, replace, patch: the generic write, after what forms send back of the read model (see below). */
async function write(rt: Runtime, ctx: Ctx, verb: 'create' | 'replace' | 'patch') {
  const json = await ctx.json();
  const echoed = verb !== 'create' && json && typeof json === 'object' && !Array.isArray(json);
  const body = echoed ? await withoutServedBlanks(rt, ctx.params.id, json as Record<string, unknown>) : json;
  const inner: Ctx = { ...ctx, json: async () => body };
  return verb === 'create' ? createResource(rt, signer, inner) : updateResource(rt, signer, inner, verb);
}

/** The symbols a filter or sort names, so that anonymous callers cannot probe fields they are not shown. */
function symbolsOf(node: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const n of node) symbolsOf(n, out);
  else if (node && typeof node === 'object') {
    const n = node as Record<string, unknown>;
    if ((n.kind === 'symbol' || n.kind === 'boolSymbol') && typeof n.name === 'string') out.add(n.name);
    if ((n.kind === 'anyOf' || n.kind === 'allOf') && typeof n.set === 'string') out.add(n.set);
    if (typeof n.field === 'string' && 'direction' in n) out.add(n.field);
    for (const v of Object.values(n)) symbolsOf(v, out);
  }
  return out;
}

/**
 * `GET /external-jwt-signers` of the client API, without authentication: enabled signers only, with only the
 * fields a login page needs to offer them, paged like every list. Filters and sorts may name only those fields.
 */
async function clientList(rt: Runtime, ctx: Ctx) {
  const params = listParams(ctx.query);
  const named = symbolsOf(parseQuery(params.filter ?? ''));
  if (params.sort) symbolsOf(parseQuery(`sort by ${params.sort}`), named);
  const hidden = [...named].find((s) => !CLIENT_SYMBOLS.has(s));
  if (hidden !== undefined) {
    throw new ApiError('INVALID_FILTER', {
      message: `'${hidden}' is not a field of the signer list`,
      cause: { field: hidden, reason: 'not a field of the signer list', value: hidden },
    });
  }
  const repo = rt.store.repoFor(signer);
  const page = await repo.list({ ...params, scope: { where: { enabled: true } } });
  const data = page.rows.map(clientView);
  return { data, meta: listMeta(page, [...CLIENT_SYMBOLS]) };
}

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(signer, 'create', (ctx) => write(rt, ctx, 'create')),
    standardRoute(signer, 'replace', (ctx) => write(rt, ctx, 'replace')),
    standardRoute(signer, 'patch', (ctx) => write(rt, ctx, 'patch')),
    {
      method: 'GET',
      path: '/external-jwt-signers',
      api: 'client',
      access: 'public',
      responds: clientListAnswer,
      handler: (ctx) => clientList(rt, ctx),
    },
  ];
}

/** The client API's anonymous signer list: the management read model cut down to what anonymous callers see. */
function clientListAnswer(r: Responses): Success {
  const full = readSchema(signer);
  const keep = new Set<string>(['id', 'createdAt', 'updatedAt', 'tags', '_links', ...CLIENT_VIEW_FIELDS]);
  const all = Object.entries(full.properties as Record<string, JsonSchema>);
  const properties = Object.fromEntries(all.filter(([name]) => keep.has(name)));
  const required = [...keep].filter((name) => name !== 'tags');
  const item = r.define('clientExternalJwtSignerDetail', { ...full, properties, required });
  const description = 'the enabled external JWT signers, as anonymous callers see them';
  return r.page('listClientExternalJwtSignersEnvelope', description, { type: 'array', items: item });
}
