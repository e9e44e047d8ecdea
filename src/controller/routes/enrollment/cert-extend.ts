// The routes of certificate extension (src/controller/model/resources/authenticator.ts): by the identity itself
// (extend, then extend-verify), and an administrator's request that it extend.
import {
  extendableBy,
  extendCertificate,
  requestExtension,
  verifyExtension,
} from '../../model/resources/authenticator.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { enrollBody } from './body.js';
import type { Responses, Success } from '../../server/responses.js';

const EXTEND_BODY = { type: 'object', properties: {}, additionalProperties: false };

async function extend(rt: Runtime, ctx: Ctx) {
  const row = await extendableBy(rt, ctx.params.id, ctx.principal!);
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ['clientCertCsr']) as { clientCertCsr?: string };
  return { data: await extendCertificate(rt, row, body.clientCertCsr, ctx.now) };
}

async function verify(rt: Runtime, ctx: Ctx) {
  const row = await extendableBy(rt, ctx.params.id, ctx.principal!);
  const body = enrollBody(rt, EXTEND_BODY, await ctx.json(), ['clientCert']) as { clientCert?: string };
  await verifyExtension(rt, row, body.clientCert, ctx.now);
  return { data: {} };
}

const REQUEST_EXTEND_BODY = {
  type: 'object',
  properties: { rollKeys: { type: 'boolean' } },
  additionalProperties: false,
};

/** `POST /authenticators/{id}/request-extend` (admin), with an optional `{rollKeys}`. */
async function requestExtend(rt: Runtime, ctx: Ctx) {
  const row = await rt.store.repo('authenticator').get(ctx.params.id);
  const text = await ctx.text();
  const body = rt.validators.custom(REQUEST_EXTEND_BODY, text.trim() === '' ? {} : await ctx.json()) as {
    rollKeys?: boolean;
  };
  await requestExtension(rt, row, body.rollKeys === true, ctx.now);
  return { data: {} };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/authenticators/{id}/request-extend',
      api: 'management',
      access: 'admin',
      operationId: 'requestExtendAuthenticator',
      responds: (r) => r.empty('done (authenticator)'),
      handler: (ctx) => requestExtend(rt, ctx),
    },
    {
      method: 'POST',
      path: '/current-identity/authenticators/{id}/extend',
      api: 'both',
      access: 'session',
      responds: extendAnswer,
      handler: (ctx) => extend(rt, ctx),
    },
    {
      method: 'POST',
      path: '/current-identity/authenticators/{id}/extend-verify',
      api: 'both',
      access: 'session',
      responds: (r) => r.empty('the new certificate replaces the old one'),
      handler: (ctx) => verify(rt, ctx),
    },
  ];
}

function extendAnswer(r: Responses): Success {
  return r.data('identityExtendEnrollmentEnvelope', 'the new client certificate and the CA bundle', {
    type: 'object',
    properties: { ca: { type: 'string' }, clientCert: { type: 'string' } },
    required: ['ca', 'clientCert'],
  });
}
