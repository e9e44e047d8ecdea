import { internalField } from './common.js';
import type { ResourceDef } from './types.js';

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
    rootCertPem: internalField({ kind: 'string' }, 'The root CA certificate (PEM)'),
    intermediateCertPem: internalField({ kind: 'string' }, 'The intermediate CA certificate that signs (PEM)'),
    previousIntermediateCertPems: internalField(
      { kind: 'array', items: { kind: 'string' } },
      'Earlier intermediates of this root: they sign nothing now, what they issued stays trusted',
    ),
    trustDomain: internalField({ kind: 'string' }, 'The SPIFFE trust domain of the network'),
    sealedKeys: internalField({ kind: 'string' }, 'The root and intermediate private keys, sealed with the key file'),
  },
};
