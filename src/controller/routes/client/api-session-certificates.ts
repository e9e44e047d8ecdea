// Ephemeral certificates of the current API session (client API): a CSR becomes a client certificate valid for
// 12 hours at most (as OpenZiti), signed by the intermediate CA, its subject the identity's id and its SPIFFE id
// naming the session. They are listed, read and deleted by that session only (another session's are 404), and go
// with the session. They are not accepted by `/authenticate?method=cert`: a session's certificate must not open
// sessions that outlive it (OpenZiti's routers accept them for the session's own connections; ctl has no data plane).
import { X509Certificate } from 'node:crypto';
import { ApiError, notFound } from '../../../protocol/errors.js';
import { commonNameSubject } from '../../../protocol/csr.js';
import { resource } from '../../../resources/index.js';
import { acceptCsr, csrStep, issueClientCert } from '../../pki/issue.js';
import type { ResourceBehaviour } from '../../model/behaviour.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { newId, type Row } from '../../store/repository.js';
import { enrollBody } from '../enrollment/body.js';
import { listResource } from '../kit/crud.js';
import { answers } from '../kit/describe.js';
import { toWire } from '../../model/present.js';

const certificate = resource('api-session-certificate');
const BASE = '/current-api-session/certificates';
/** OpenZiti's lifespan of a session certificate. */
const SESSION_CERT_LIFETIME_MS = 12 * 60 * 60 * 1000;
const CREATE_BODY = { type: 'object', properties: {}, additionalProperties: false };

const self = (id: string) => ({ self: { href: `.${BASE}/${id}` } });

function present(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => ({ ...toWire(certificate, row), _links: self(row.id) }));
}

/** One of the caller's session's certificates; anything else (another session's, unknown) is 404. */
async function own(rt: Runtime, ctx: Ctx): Promise<Row> {
  const row = await rt.store.repoFor(certificate).find(ctx.params.id);
  if (!row || row.apiSessionId !== ctx.principal!.apiSessionId)
    throw notFound('api-session-certificate', ctx.params.id);
  return row;
}

/** The SPIFFE id OpenZiti gives a session certificate. */
function sessionSpiffeId(trustDomain: string, identityId: string, apiSessionId: string, id: string): string {
  const identity = `spiffe://${trustDomain}/identity/${encodeURIComponent(identityId)}`;
  return `${identity}/apiSession/${encodeURIComponent(apiSessionId)}/apiSessionCertificate/${encodeURIComponent(id)}`;
}

async function create(rt: Runtime, ctx: Ctx) {
  const body = enrollBody(rt, CREATE_BODY, await ctx.json(), ['csr']) as { csr?: string };
  if (!body.csr || body.csr.trim() === '')
    throw new ApiError('COULD_NOT_VALIDATE', { cause: { field: 'csr', reason: 'csr in body is required', value: '' } });
  const { identityId, apiSessionId } = ctx.principal!;
  const id = newId();
  const csrPem = body.csr;
  const issued = csrStep('csr', () =>
    // The subject is the identity, whatever the CSR asked for (as OpenZiti): the certificate speaks for it alone.
    issueClientCert(
      rt.pki,
      { ...acceptCsr(csrPem), subjectDer: commonNameSubject(identityId) },
      {
        uris: [sessionSpiffeId(rt.pki.trustDomain, identityId, apiSessionId, id)],
        now: ctx.now,
        validityMs: SESSION_CERT_LIFETIME_MS,
      },
    ),
  );
  const leaf = new X509Certificate(issued.leafPem);
  await rt.store.tx(() =>
    rt.writes.insert(
      certificate.name,
      {
        apiSessionId,
        subject: leaf.subject.replace(/\n/g, ','),
        fingerprint: issued.fingerprint,
        validFrom: new Date(leaf.validFrom).toISOString(),
        validTo: new Date(leaf.validTo).toISOString(),
        certificate: issued.chainPem,
      },
      { id, now: ctx.now.toISOString() },
    ),
  );
  return { status: 201, data: { _links: self(id), id, certificate: issued.chainPem, cas: rt.pki.caBundlePem } };
}

export const apiSessionCertificateBehaviour: ResourceBehaviour = {
  resource: 'api-session-certificate',
  present,
  routes: (rt): Route[] => {
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
        handler: async (ctx) => ({ data: present([await own(rt, ctx)])[0] }),
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
  },
};
