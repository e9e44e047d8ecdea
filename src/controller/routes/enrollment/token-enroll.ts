import { enrollWithToken, invalidToken } from '../../model/enrollment/token.js';
import type { Runtime } from '../../runtime.js';
import { bearerOf, headerOf } from '../../server/auth-stage.js';
import type { Ctx, Reply, Route } from '../../server/types.js';
import { enrollBody } from './body.js';
import { certificatesAnswer } from './certificates-answer.js';

/** OpenZiti's tokenEnrollmentRequest: a CSR asks for a certificate; nothing else is in it. */
const TOKEN_BODY = { type: 'object', properties: {}, additionalProperties: false };

/**
 * `POST /enroll/token`, no session (src/controller/model/enrollment/token.ts): the external JWT in `Authorization:
 * Bearer` (the signer by the optional `ziti-token-issuer-id` header, or by the token's issuer), `{clientCsr}` for a
 * certificate.
 */
async function tokenEnroll(rt: Runtime, ctx: Ctx): Promise<Reply> {
  const text = await ctx.text();
  const json = text.trim() === '' ? {} : await ctx.json();
  const body = enrollBody(rt, TOKEN_BODY, json, ['clientCsr']) as { clientCsr?: string };
  const token = bearerOf(ctx.req);
  if (!token) throw invalidToken(rt, 'no token in Authorization: Bearer');
  const named = headerOf(ctx.req, 'ziti-token-issuer-id');
  return { data: await enrollWithToken(rt, { token, named }, body.clientCsr, ctx.now) };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'POST',
      path: '/enroll/token',
      api: 'client',
      access: 'public',
      responds: (r) =>
        certificatesAnswer(r, "the new identity's certificate chain and the CA bundle; {} without a CSR"),
      handler: (ctx) => tokenEnroll(rt, ctx),
    },
  ];
}
