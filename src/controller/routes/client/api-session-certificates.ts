// Ephemeral certificates of the current API session (client API): a CSR becomes a client certificate valid for
// 12 hours at most (as OpenZiti), signed by the intermediate CA, its subject the identity's id and its SPIFFE id
// naming the session. They are listed, read and deleted by that session only (another session's are 404), and go
// with the session. They are not accepted by `/authenticate?method=cert`: a session's certificate must not open
// sessions that outlive it (OpenZiti's routers accept them for the session's own connections; ctl has no data plane).
import { ApiError, notFound } from '../../../protocol/errors.js';
import { resource } from '../../../resources/index.js';
import {
  issueSessionCertificate,
  SESSION_CERTIFICATES_PATH as BASE,
  sessionCertificateLinks,
} from '../../model/resources/api-session-certificate.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import type { Row } from '../../store/repository.js';
import { enrollBody } from '../enrollment/body.js';
import { listResource } from '../kit/crud.js';
import { answers } from '../kit/describe.js';

const certificate = resource('api-session-certificate');
const CREATE_BODY = { type: 'object', properties: {}, additionalProperties: false };

/** One of the caller's session's certificates; anything else (another session's, unknown) is 404. */
async function own(rt: Runtime, ctx: Ctx): Promise<Row> {
  const row = await rt.store.repoFor(certificate).find(ctx.params.id);
  if (!row || row.apiSessionId !== ctx.principal!.apiSessionId)
    throw notFound('api-session-certificate', ctx.params.id);
  return row;
}

async function create(rt: Runtime, ctx: Ctx) {
  const body = enrollBody(rt, CREATE_BODY, await ctx.json(), ['csr']) as { csr?: string };
  if (!body.csr || body.csr.trim() === '')
    throw new ApiError('COULD_NOT_VALIDATE', { cause: { field: 'csr', reason: 'csr in body is required', value: '' } });
  const { id, chainPem } = await issueSessionCertificate(rt, ctx.principal!, body.csr, ctx.now);
  return {
    status: 201,
    data: { _links: sessionCertificateLinks(id), id, certificate: chainPem, cas: rt.pki.caBundlePem },
  };
}

export function routes(rt: Runtime): Route[] {
  return [
    {
      method: 'GET',
      path: BASE,
      api: 'client',
      access: 'session',
      operationId: 'listCurrentApiSessionCertificates',
      responds: answers.list(certificate),
      handler: (ctx) => listResource(rt, certificate, ctx, { where: { apiSessionId: ctx.principal!.apiSessionId } }),
    },
    {
      method: 'POST',
      path: BASE,
      api: 'client',
      access: 'session',
      operationId: 'createCurrentApiSessionCertificate',
      responds: answers.created(certificate),
      handler: (ctx) => create(rt, ctx),
    },
    {
      method: 'GET',
      path: `${BASE}/{id}`,
      api: 'client',
      access: 'session',
      operationId: 'detailCurrentApiSessionCertificate',
      responds: answers.detail(certificate),
      handler: async (ctx) => ({ data: (await rt.present(certificate, [await own(rt, ctx)]))[0] }),
    },
    {
      method: 'DELETE',
      path: `${BASE}/{id}`,
      api: 'client',
      access: 'session',
      operationId: 'deleteCurrentApiSessionCertificate',
      responds: (r) => r.empty(`done (${certificate.label})`),
      handler: async (ctx) => {
        const row = await own(rt, ctx);
        await rt.writes.delete(certificate.name, row);
        return { data: {} };
      },
    },
  ];
}
