import { serverField } from './common.js';
import type { FieldDef, FieldType, ResourceDef } from './types.js';

/** Kept by the controllers, never served nor accepted in any body. */
function internal(type: FieldType, description: string): FieldDef {
  return { ...serverField(type, description), internal: true };
}

/**
 * The network's trust root when the controllers keep it in the database (`--pki-key-file`): one row, written by the
 * first controller on an empty database and read by every later one, so all of them serve one CA bundle and trust
 * what any of them issued. The certificates are public; the CA private keys are sealed with a key derived from the
 * key file (src/controller/pki/key-file.ts), so whoever reads the database or its backups without that file cannot
 * issue certificates.
 *
 * No route serves it (`api: 'client'` and no operations keep it out of the management resources' contract test).
 */
export const controllerPki: ResourceDef = {
  name: 'controller-pki',
  plural: 'controller-pkis',
  label: 'controller PKI',
  api: 'client',
  operations: [],
  table: 'controller_pki',
  description: "The controllers' shared root and intermediate CA",
  fields: {
    rootCertPem: internal({ kind: 'string' }, 'The root CA certificate (PEM)'),
    intermediateCertPem: internal({ kind: 'string' }, 'The intermediate CA certificate that signs (PEM)'),
    previousIntermediateCertPems: internal(
      { kind: 'array', items: { kind: 'string' } },
      'Earlier intermediates of this root: they sign nothing now, what they issued stays trusted',
    ),
    trustDomain: internal({ kind: 'string' }, 'The SPIFFE trust domain of the network'),
    sealedKeys: internal({ kind: 'string' }, 'The root and intermediate private keys, sealed with the key file'),
  },
};
