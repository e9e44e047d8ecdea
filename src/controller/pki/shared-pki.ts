// The network's CA kept in the database (--pki-key-file), so that every controller on one database is one trust
// root: the same CA bundle, and what one issues the others trust. Each controller still issues its own server
// certificate, for its own names, and keeps it in its data directory.
import { X509Certificate } from 'node:crypto';
import { resource } from '../../resources/index.js';
import { ControllerStartError } from '../start-error.js';
import type { Row } from '../store/repository.js';
import type { Store } from '../store/store.js';
import type { PkiKey } from './key-file.js';
import {
  assemblePki,
  type CaParts,
  createIntermediate,
  createRoot,
  derivedTrustDomain,
  intermediateUsable,
  keepOutgoing,
  loadOrIssueServerCert,
  type Pki,
  readCa,
} from './pki.js';

/** The one row of the table. */
const ROW_ID = 'network';

const table = (store: Store) => store.repoFor(resource('controller-pki'));

/**
 * The shared CA: read from the database and opened with `key`, or, on a database that has none, this controller's
 * own CA from its PKI directory (so a controller that ran alone keeps the root its clients trust), else a new one,
 * sealed and written. Then this controller's server certificate for `hosts`. A key that does not open the stored
 * CA keys is refused (PkiKeyMismatchError) before anything is written.
 */
export async function loadOrCreateSharedPki(
  store: Store,
  key: PkiKey,
  opts: { pkiDir: string; hosts: string[]; now?: Date },
): Promise<Pki> {
  const now = opts.now ?? new Date();
  let ca = await readShared(store, key);
  if (!ca) ca = await insertFirst(store, key, (await readCa(opts.pkiDir)) ?? (await newCa(now)), now);
  if (!intermediateUsable(ca.intermediate, ca.root, now)) ca = await rotateIntermediate(store, key, ca, now);
  const server = await loadOrIssueServerCert(opts.pkiDir, ca.intermediate, opts.hosts, now);
  return assemblePki({ ...ca, server });
}

/** A controller without the key file must not make a PKI of its own beside the one its database holds. */
export async function refuseSharedPkiWithoutKey(store: Store): Promise<void> {
  if (!(await table(store).find(ROW_ID))) return;
  throw new ControllerStartError(
    "this database holds the network's PKI, shared by the controllers that use it: start with --pki-key-file " +
      '(or CTL_PKI_KEY_FILE) naming the key file they were given',
  );
}

async function newCa(now: Date): Promise<CaParts> {
  const root = await createRoot(now);
  const intermediate = await createIntermediate(root, now);
  return { root, intermediate, previous: [], trustDomain: derivedTrustDomain(new X509Certificate(root.certPem)) };
}

async function readShared(store: Store, key: PkiKey): Promise<CaParts | undefined> {
  const row = await table(store).find(ROW_ID);
  return row ? opened(row, key) : undefined;
}

function opened(row: Row, key: PkiKey): CaParts {
  const rootCertPem = row.rootCertPem as string;
  const intermediateCertPem = row.intermediateCertPem as string;
  const sealed = key.open(row.sealedKeys as string, sealingContext(rootCertPem, intermediateCertPem));
  const keys = JSON.parse(sealed) as { root: string; intermediate: string };
  return {
    root: { certPem: rootCertPem, keyPem: keys.root },
    intermediate: { certPem: intermediateCertPem, keyPem: keys.intermediate },
    previous: (row.previousIntermediateCertPems as string[] | null) ?? [],
    trustDomain: row.trustDomain as string,
  };
}

/** The keys are bound to their certificates: sealed keys copied onto other certificates do not open. */
function sealingContext(rootCertPem: string, intermediateCertPem: string): string {
  return `${rootCertPem}\n${intermediateCertPem}`;
}

function columns(ca: CaParts, key: PkiKey): Record<string, unknown> {
  return {
    rootCertPem: ca.root.certPem,
    intermediateCertPem: ca.intermediate.certPem,
    previousIntermediateCertPems: ca.previous,
    trustDomain: ca.trustDomain,
    sealedKeys: key.seal(
      JSON.stringify({ root: ca.root.keyPem, intermediate: ca.intermediate.keyPem }),
      sealingContext(ca.root.certPem, ca.intermediate.certPem),
    ),
  };
}

/** Writes the CA unless another controller starting at the same moment wrote one first: then that one is used. */
async function insertFirst(store: Store, key: PkiKey, ca: CaParts, now: Date): Promise<CaParts> {
  try {
    await table(store).insert(columns(ca, key), { id: ROW_ID, now: now.toISOString() });
    return ca;
  } catch (err) {
    const theirs = await readShared(store, key);
    if (!theirs) throw err;
    return theirs;
  }
}

/**
 * Replaces an intermediate near its expiry; the outgoing one stays in the bundle, so what it issued is still
 * trusted. If another controller rotated it meanwhile, its replacement is used.
 */
async function rotateIntermediate(store: Store, key: PkiKey, ca: CaParts, now: Date): Promise<CaParts> {
  const next: CaParts = {
    ...ca,
    intermediate: await createIntermediate(ca.root, now),
    previous: keepOutgoing(ca.previous, ca.intermediate.certPem, ca.root),
  };
  return store.tx(async () => {
    const current = await readShared(store, key);
    if (current && current.intermediate.certPem !== ca.intermediate.certPem) return current;
    await table(store).update(ROW_ID, columns(next, key), now.toISOString());
    return next;
  });
}
