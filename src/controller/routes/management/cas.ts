import { resource } from '../../../resources/index.js';
import { registerCa, verifyCa } from '../../model/resources/ca.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { created, validBody } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const ca = resource('ca');

async function createCa(rt: Runtime, ctx: Ctx) {
  return created(ca, await registerCa(rt, await validBody(rt, ca, 'create', ctx), ctx.now));
}

/** `POST /cas/{id}/verify` with a PEM certificate (text/plain) the CA signed, named by its verification token. */
async function verify(rt: Runtime, ctx: Ctx) {
  await verifyCa(rt, await rt.store.repoFor(ca).get(ctx.params.id), () => ctx.text(), ctx.now);
  return { data: {} };
}

/** `GET /cas/{id}/jwt`: the CA's static enrollment JWT (no expiry; `em: "ca"`), as `application/jwt`. */
async function caJwt(rt: Runtime, ctx: Ctx) {
  const row = await rt.store.repoFor(ca).get(ctx.params.id);
  const jwt = await rt.enrollmentSigner.signStatic({ em: 'ca', sub: row.id, jti: row.id });
  return { raw: jwt, contentType: 'application/jwt' };
}

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(ca, 'create', (ctx) => createCa(rt, ctx)),
    {
      method: 'POST',
      path: '/cas/{id}/verify',
      api: 'management',
      access: 'admin',
      responds: (r) => r.empty('the CA is verified'),
      handler: (ctx) => verify(rt, ctx),
    },
    {
      method: 'GET',
      path: '/cas/{id}/jwt',
      api: 'management',
      access: 'admin',
      responds: (r) => r.raw("the CA's enrollment JWT", { type: 'string' }, ['application/jwt']),
      handler: (ctx) => caJwt(rt, ctx),
    },
  ];
}
