import { invalidField } from '../../../protocol/errors.js';
import { semverRangeError } from '../../../protocol/semver-range.js';
import { postureCheck } from '../../../resources/posture-check.js';
import type { FieldDef } from '../../../resources/types.js';
import type { ResourceModel } from '../behaviour.js';
import type { Runtime, Write } from '../../runtime.js';
import type { Row } from '../../store/repository.js';
import { toWire } from '../present.js';

/**
 * Posture checks: one resource for every kind (OS, PROCESS, PROCESS_MULTI, DOMAIN, MAC, MFA). The body schemas
 * already hold a body that names its kind to that kind's fields (the declaration's `when`); what they cannot see
 * is the stored kind, which a replace or patch may leave out of the body, and the rules OpenZiti adds.
 */

/** The fields that belong to some kinds only, from the declaration. */
const KIND_FIELDS = Object.entries(postureCheck.fields).filter(
  (entry): entry is [string, FieldDef & { when: NonNullable<FieldDef['when']> }] => Boolean(entry[1].when),
);

const applies = (field: FieldDef, kind: string): boolean => !field.when || field.when.in.includes(kind);

type OperatingSystem = { type: string; versions: string[] };
type ProcessMatch = {
  osType: string;
  path: string;
  hashes?: string[];
  signerFingerprint?: string;
  signerFingerprints?: string[];
};

async function beforeWrite(_rt: Runtime, write: Write): Promise<Record<string, unknown>> {
  const values = { ...write.values };
  const stored = write.existing?.typeId as string | undefined;
  const kind = (stored ?? values.typeId) as string;
  // OpenZiti keeps the kind of a check whatever a replace or patch says (and files the other kind's fields where
  // nothing reads them); a body that names another kind is a mistake worth saying so.
  if (stored !== undefined && values.typeId !== undefined && values.typeId !== stored) {
    throw invalidField(
      'typeId',
      `a posture check keeps its kind: this one is ${stored}; delete ` +
        `it and create a ${values.typeId as string} check instead`,
      values.typeId,
    );
  }
  for (const [name, field] of KIND_FIELDS) {
    const value = values[name];
    if (!applies(field, kind)) {
      // A body that names its kind may carry the other kinds' fields: OpenZiti ignores them, and its console sends
      // them all, empty. A body that does not name it (our patch, a replace) means the field for this check: a
      // mistake to say (a replace fills what it leaves out with null, which is no mistake).
      if (write.values.typeId === undefined && value !== undefined && value !== null) {
        throw invalidField(name, `${name} belongs to ${field.when.in.join(', ')} checks; this one is ${kind}`, value);
      }
      delete values[name];
    } else if (write.verb === 'replace' && field.replace === 'required' && value === undefined) {
      throw invalidField(name, `${name} in body is required`, value);
    }
  }
  if (Array.isArray(values.operatingSystems))
    values.operatingSystems = checkOperatingSystems(values.operatingSystems as OperatingSystem[]);
  if (Array.isArray(values.macAddresses)) values.macAddresses = cleanMacAddresses(values.macAddresses as string[]);
  if (values.process) values.process = normaliseProcess(values.process as ProcessMatch);
  if (Array.isArray(values.processes)) values.processes = normaliseProcesses(values.processes as ProcessMatch[]);
  if (kind === 'MFA') applyMfaDefaults(write, values);
  return values;
}

/** What an MFA check holds when a body leaves an option out (create, replace) or clears it with null (any verb). */
const MFA_DEFAULTS: Record<string, number | boolean> = {
  timeoutSeconds: -1,
  promptOnWake: false,
  promptOnUnlock: false,
  ignoreLegacyEndpoints: false,
};

function applyMfaDefaults(write: Write, values: Record<string, unknown>): void {
  for (const [name, fallback] of Object.entries(MFA_DEFAULTS)) {
    if (values[name] === null || (values[name] === undefined && write.verb === 'create')) values[name] = fallback;
  }
  // OpenZiti stores a timeout of 0 or less as -1: no timeout.
  if (typeof values.timeoutSeconds === 'number' && values.timeoutSeconds <= 0) values.timeoutSeconds = -1;
}

/**
 * Each OS once (OpenZiti keys them by OS: a second entry would silently replace the first), and each version a
 * range OpenZiti can evaluate (it refuses the check otherwise). Members beyond {type, versions} are dropped (the
 * console sends its form state along).
 */
function checkOperatingSystems(list: OperatingSystem[]): OperatingSystem[] {
  const seen = new Set<string>();
  return list.map((os, i) => {
    if (seen.has(os.type))
      throw invalidField(
        `operatingSystems.${i}.type`,
        `${os.type} appears twice: list all its versions in one entry`,
        os.type,
      );
    seen.add(os.type);
    os.versions.forEach((version, j) => {
      const problem = semverRangeError(version);
      if (problem)
        throw invalidField(
          `operatingSystems.${i}.versions.${j}`,
          `'${version}' is not a version range (e.g. 10.0.19041, >=13.0.0, 11.x): ${problem}`,
          version,
        );
    });
    return { type: os.type, versions: os.versions };
  });
}

/**
 * MAC addresses in the form clients' responses are compared in: OpenZiti reduces each reported address to its
 * lower-case hex digits (`00:11:22:AA:BB:CC` → `001122aabbcc`) but stores a check's addresses as given, so that a
 * check written with separators (its console shows and sends them so) could never pass. We store them reduced.
 */
function cleanMacAddresses(list: string[]): string[] {
  const out: string[] = [];
  list.forEach((raw, i) => {
    const mac = raw.toLowerCase().replace(/[^0-9a-f]/g, '');
    if (mac === '')
      throw invalidField(
        `macAddresses.${i}`,
        `'${raw}' has no hex digits: a MAC address is written like 00:11:22:33:44:55`,
        raw,
      );
    if (!out.includes(mac)) out.push(mac);
  });
  return out;
}

/**
 * As OpenZiti stores them: hashes and the signer's fingerprint in lower case, hashes an
 * empty list when none; nothing else.
 */
function normaliseProcess(p: ProcessMatch): ProcessMatch {
  return {
    osType: p.osType,
    path: p.path,
    hashes: (p.hashes ?? []).map((h) => h.toLowerCase()),
    ...(p.signerFingerprint === undefined ? {} : { signerFingerprint: p.signerFingerprint.toLowerCase() }),
  };
}

/** One entry per OS and path (OpenZiti keys them so, and a repeat would silently replace the first); nothing else. */
function normaliseProcesses(list: ProcessMatch[]): ProcessMatch[] {
  const seen = new Set<string>();
  return list.map((p, i) => {
    const key = `${p.osType}-${p.path}`;
    if (seen.has(key)) throw invalidField(`processes.${i}.path`, `${p.path} on ${p.osType} appears twice`, p.path);
    seen.add(key);
    return { osType: p.osType, path: p.path, hashes: p.hashes ?? [], signerFingerprints: p.signerFingerprints ?? [] };
  });
}

/** The generic read model without the fields of the other kinds (their columns are null, or hold defaults). */
function present(rows: Row[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const out = toWire(postureCheck, row);
    for (const [name, field] of KIND_FIELDS) if (!applies(field, row.typeId as string)) delete out[name];
    return out;
  });
}

export const model: ResourceModel = { resource: 'posture-check', hooks: { beforeWrite }, present };
