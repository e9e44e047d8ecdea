// The routes of router enrollment and certificate renewal (wire-protocol section 6); the rules are in
// src/controller/model/enrollment/router.ts.
import {
  type RouterCsrs,
  extendRouterCertificates,
  redeemRouterToken,
  routerWithToken,
} from '../../model/enrollment/router.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Reply, Route } from '../../server/types.js';
import { peerCertificate } from './peer-certificate.js';
import { enrollBody } from './body.js';
import type { Responses } from '../../server/responses.js';
import { certificatesAnswer } from './certificates-answer.js';

/**
 * `/enroll/erott`: OpenZiti's Swagger names the CSRs `serverCsr` and `clientCsr`, while its routers send the generic
 * enrollment's `serverCertCsr` and `certCsr`; either pair is accepted.
 */
const ERROTT_BODY = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 100 } },
  required: ['token'],
  additionalProperties: false,
};
const CSR_MEMBERS = ['serverCsr', 'clientCsr', 'serverCertCsr', 'certCsr'] as const;
const EXTEND_BODY = { type: 'object', properties: {}, additionalProperties: false };

/** The two CSRs of a router enrollment body, under either naming. */
export function routerCsrs(body: Record<string, unknown>): RouterCsrs {
  const pick = (...names: string[]) =>
    names.map((n) => body[n]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return { serverCsr: pick('serverCertCsr', 'serverCsr'), clientCsr: pick('certCsr', 'clientCsr') };
}

async function erottEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = enrollBody(rt, ERROTT_BODY, await ctx.json(), CSR_MEMBERS);
  const csrs = routerCsrs(body);
  const fields = {
    server: body.serverCsr !== undefined ? 'serverCsr' : 'serverCertCsr',
    client: body.clientCsr !== undefined ? 'clientCsr' : 'certCsr',
  };
  const token = body.token as string;
  const found = await routerWithToken(rt, token);
  return { data: await redeemRouterToken(rt, token, found, 'erott', csrs, { fields, now: ctx.now }) };
}

/** `POST /enroll/extend/router`, over mutual TLS with the router's current client certificate. */
async function extendRouter(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ['certCsr', 'serverCertCsr']);
  return { data: await extendRouterCertificates(rt, peerCertificate(ctx), routerCsrs(body), ctx.now) };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/enroll/erott',
      api: 'client',
      access: 'public',
      responds: routerCertificates,
      handler: (ctx) => erottEnroll(rt, ctx),
    },
    {
      method: 'POST',
      path: '/enroll/extend/router',
      api: 'client',
      access: 'public',
      responds: routerCertificates,
      handler: (ctx) => extendRouter(rt, ctx),
    },
  ];
}

const routerCertificates = (r: Responses) =>
  certificatesAnswer(r, "the router's client and server certificate chains and the CA bundle");
