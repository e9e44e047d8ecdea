import { datetime, serverField } from './common.js';
import type { ResourceDef } from './types.js';

/**
 * Ephemeral certificates of an API session (client API `/current-api-session/certificates`): a CSR signed by the
 * controller's intermediate CA for 12 hours at most, naming the identity (CN = its id) and the session (a SPIFFE
 * id `.../identity/<id>/apiSession/<session>/apiSessionCertificate/<id>`). They belong to the session and go with it
 * (the database cascades when the session ends, by logout, expiry or an admin). As in OpenZiti, they are not a
 * credential to open new sessions with: only authenticators are.
 *
 * No standard group: the session's own routes (src/controller/routes/client/api-session-certificates.ts) list, create,
 * read and delete them. `api: 'client'` keeps it out of the management resources' contract test.
 */
export const apiSessionCertificate: ResourceDef = {
  name: 'api-session-certificate',
  plural: 'api-session-certificates',
  label: 'API session certificate',
  api: 'client',
  operations: [],
  table: 'api_session_certificates',
  description: 'A short-lived client certificate of one API session',
  fields: {
    apiSessionId: {
      ...serverField(
        { kind: 'ref', resource: 'api-session', onDelete: 'cascade' },
        'The API session the certificate belongs to',
      ),
      internal: true,
    },
    subject: serverField({ kind: 'string' }, 'Subject of the certificate', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    fingerprint: serverField({ kind: 'string' }, 'SHA-1 fingerprint of the certificate', {
      filterable: true,
      read: { required: true },
    }),
    validFrom: serverField(datetime, 'Start of validity', {
      filterable: true,
      sortable: true,
      read: { required: true },
    }),
    validTo: serverField(datetime, 'End of validity', { filterable: true, sortable: true, read: { required: true } }),
    certificate: serverField({ kind: 'string' }, 'The certificate chain (PEM): the leaf, then the intermediate CA', {
      read: { required: true },
    }),
  },
};
