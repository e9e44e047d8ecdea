// The flags of each kind of posture check, shared by `create <kind>` (each kind its own) and `update` (all of
// them: the kind is known only once the check is read). Parsers turn readable values into the API's shapes and
// refuse what the controller would refuse, before anything is sent.
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { semverRangeError } from '../../protocol/semver-range.js';
import { OS_TYPES, type PostureCheckKind } from '../../resources/posture-check.js';
import { given } from '../generic/flags.js';
import { completeWith } from '../completion/hints.js';
import { keepsLast } from '../completion/option-facts.js';

export type OsType = (typeof OS_TYPES)[number];
export interface OperatingSystem {
  type: OsType;
  versions: string[];
}
export interface ProcessSpec {
  osType: OsType;
  path: string;
  hashes: string[];
  signerFingerprints: string[];
}

/** What the kind flags given say, in the API's shapes; only what was typed is present. */
export interface KindInput {
  operatingSystems?: OperatingSystem[];
  domains?: string[];
  macAddresses?: string[];
  osType?: OsType;
  path?: string;
  hashes?: string[];
  signerFingerprint?: string;
  semantic?: 'AllOf' | 'AnyOf';
  processes?: ProcessSpec[];
  timeoutSeconds?: number;
  promptOnWake?: boolean;
  promptOnUnlock?: boolean;
  ignoreLegacyEndpoints?: boolean;
}

/** `windows` → `Windows`: OS names as clients report them, typed in any case. */
export function osType(value: string): OsType {
  const found = OS_TYPES.find((t) => t.toLowerCase() === value.trim().toLowerCase());
  if (!found) throw new InvalidArgumentError(`unknown OS '${value}': expected one of ${OS_TYPES.join(', ')}.`);
  return found;
}

/**
 * A version range as the controller evaluates it (semver). A version of one or two numbers means every version that
 * starts so: `13` is `13.x`, `10.0` is `10.0.x` (the controller itself wants three numbers or a wildcard).
 */
export function versionRange(value: string): string {
  const range = /^\d+(\.\d+)?$/.test(value) ? `${value}.x` : value;
  const problem = semverRangeError(range);
  if (problem)
    throw new InvalidArgumentError(
      `'${value}' is not a version range (e.g. 10.0.19041, >=13.0.0, 11.x, 13): ${problem}.`,
    );
  return range;
}

/** `--os Windows:10.0.19041,10.0.22000 --os macOS:13 --os Linux`: an OS and the versions that pass (none: any). */
export function osSpec(value: string, previous: OperatingSystem[] = []): OperatingSystem[] {
  const colon = value.indexOf(':');
  const type = osType(colon === -1 ? value : value.slice(0, colon));
  const versions = colon === -1 ? [] : split(value.slice(colon + 1)).map(versionRange);
  const same = previous.find((os) => os.type === type);
  if (same)
    return previous.map((os) => (os === same ? { type, versions: [...new Set([...os.versions, ...versions])] } : os));
  return [...previous, { type, versions }];
}

function split(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function list(value: string, previous: string[] = []): string[] {
  return [...new Set([...previous, ...split(value)])];
}

/**
 * `00:11:22:AA:BB:CC` → `001122aabbcc`: clients report MAC addresses as lower-case hex digits without separators,
 * and the controller compares them as text, so a check must hold them in that form to ever pass.
 */
export function macAddress(value: string, previous: string[] = []): string[] {
  const out = [...previous];
  for (const raw of split(value)) {
    const mac = raw.toLowerCase().replace(/[:\-.\s]/g, '');
    if (!/^(?:[0-9a-f]{12}|[0-9a-f]{16})$/.test(mac))
      throw new InvalidArgumentError(`'${raw}' is not a MAC address (12 hex digits, e.g. 00:11:22:33:44:55).`);
    if (!out.includes(mac)) out.push(mac);
  }
  return out;
}

/** A hash in lower-case hex, of the length its algorithm gives (SHA-512 of a binary, SHA-1 of a signer). */
function hex(value: string, digits: number, what: string): string {
  const clean = value.trim().toLowerCase().replace(/[:\s]/g, '');
  if (!new RegExp(`^[0-9a-f]{${digits}}$`).test(clean))
    throw new InvalidArgumentError(`'${value}' is not ${what} (${digits} hex digits).`);
  return clean;
}

/** `--mfa-timeout 300`, `5m`, `1h`, `1d`; `none` (or 0) for no timeout. (`--timeout` is the global request timeout.) */
export const timeout = keepsLast((value: string): number => {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '0' || v === '-1') return -1;
  const m = /^(\d+)(s|m|h|d)?$/.exec(v);
  const seconds = m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'] : NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 1 || seconds > 2_147_483_647)
    throw new InvalidArgumentError('expected seconds (300) or a duration (5m, 1h, 1d), or none.');
  return seconds;
});

/** Which flags each kind takes (the commander attribute names), and the words for them in messages. */
export const KIND_FLAGS: Record<PostureCheckKind, readonly string[]> = {
  OS: ['os'],
  DOMAIN: ['domain'],
  MAC: ['mac'],
  PROCESS: ['osType', 'path', 'hash', 'signer'],
  PROCESS_MULTI: ['semantic', 'process', 'hash', 'signer'],
  MFA: ['mfaTimeout', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
};

const flagWord = (key: string): string => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Adds the flags of `kinds` to a command and returns how to read them back. With PROCESS_MULTI, `--hash` and
 * `--signer` belong to the `--process` before them (commander parses options in the order typed); before any
 * `--process` (a PROCESS check) they belong to the check's one process.
 */
export function addKindFlags(
  command: CommandUnknownOpts,
  kinds: readonly PostureCheckKind[],
  verb: 'create' | 'update',
): (cmd: CommandUnknownOpts) => KindInput {
  const has = (kind: PostureCheckKind) => kinds.includes(kind);
  const replaces = verb === 'update' ? ' (replaces the list)' : '';
  let processes: ProcessSpec[] = [];
  let hashes: string[] = [];
  let signers: string[] = [];
  const lastProcess = () => (has('PROCESS_MULTI') ? processes[processes.length - 1] : undefined);
  if (has('OS')) {
    const os = new Option(
      '--os <os[:versions]>',
      'an OS that passes, with the versions that pass, comma-separated ' +
        `(none: any version); repeat for each OS${replaces}`,
    );
    // The OS names complete; the versions after the colon are the user's to type.
    command.addOption(completeWith(os.argParser(osSpec), { kind: 'values', values: OS_TYPES, qualified: true }));
  }
  if (has('DOMAIN'))
    command.addOption(
      new Option('--domain <domain>', `a Windows domain that passes; repeat or comma-separate${replaces}`).argParser(
        list,
      ),
    );
  if (has('MAC'))
    command.addOption(
      new Option('--mac <address>', `a MAC address that passes; repeat or comma-separate${replaces}`).argParser(
        macAddress,
      ),
    );
  if (has('PROCESS')) {
    // Choices rather than a case-blind parser: the shell completes them.
    command.addOption(new Option('--os-type <os>', 'the OS the process runs on').choices(OS_TYPES));
    command.addOption(new Option('--path <path>', 'the absolute path of the executable'));
  }
  if (has('PROCESS_MULTI')) {
    command.addOption(
      new Option('--semantic <semantic>', 'AllOf: every process must run; AnyOf: one is enough').choices([
        'AllOf',
        'AnyOf',
      ] as const),
    );
    command.addOption(
      new Option(
        '--process <os:path>',
        `a process that must run, as OS:PATH; repeat for each${replaces}; --hash and --signer after it belong to it`,
      ).argParser((value: string) => {
        const colon = value.indexOf(':');
        if (colon <= 0 || colon === value.length - 1)
          throw new InvalidArgumentError(`expected OS:PATH, e.g. Windows:C:\\av.exe.`);
        processes = [
          ...processes,
          { osType: osType(value.slice(0, colon)), path: value.slice(colon + 1), hashes: [], signerFingerprints: [] },
        ];
        return processes;
      }),
    );
  }
  if (has('PROCESS') || has('PROCESS_MULTI')) {
    command.addOption(
      new Option(
        '--hash <sha512>',
        `a SHA-512 hash of an accepted binary (128 hex digits); repeat for several${replaces}`,
      ).argParser((value: string) => {
        const h = hex(value, 128, 'a SHA-512 hash');
        const p = lastProcess();
        if (p) p.hashes = [...new Set([...p.hashes, h])];
        else hashes = [...new Set([...hashes, h])];
        return true;
      }),
    );
    command.addOption(
      new Option('--signer <sha1>', 'the SHA-1 fingerprint of the signing certificate (40 hex digits)').argParser(
        (value: string) => {
          const s = hex(value, 40, 'a SHA-1 fingerprint');
          const p = lastProcess();
          if (p) p.signerFingerprints = [...new Set([...p.signerFingerprints, s])];
          else signers = [...new Set([...signers, s])];
          return true;
        },
      ),
    );
  }
  if (has('MFA')) {
    command.addOption(
      new Option(
        '--mfa-timeout <seconds>',
        'how long an MFA code stays good: seconds, or 5m, 1h, 1d; none for no timeout',
      ).argParser(timeout),
    );
    for (const [flag, what] of [
      ['prompt-on-wake', 'ask for a code again when the device wakes'],
      ['prompt-on-unlock', 'ask for a code again when the device is unlocked'],
      ['ignore-legacy-endpoints', 'let clients that cannot prompt pass with the MFA of their login'],
    ] as const) {
      command.addOption(new Option(`--${flag}`, what));
      command.addOption(new Option(`--no-${flag}`, `the opposite of --${flag}`));
    }
  }
  return (cmd) => {
    const o = cmd.opts();
    const typed = (key: string) => given(cmd, key);
    const input: KindInput = {};
    if (typed('os')) input.operatingSystems = o.os as OperatingSystem[];
    if (typed('domain')) input.domains = o.domain as string[];
    if (typed('mac')) input.macAddresses = o.mac as string[];
    if (typed('osType')) input.osType = o.osType as OsType;
    if (typed('path')) input.path = o.path as string;
    if (hashes.length) input.hashes = hashes;
    if (signers.length > 1) throw new UsageError('a PROCESS check takes one --signer');
    if (signers.length) input.signerFingerprint = signers[0];
    if (typed('semantic')) input.semantic = o.semantic as 'AllOf' | 'AnyOf';
    if (processes.length) input.processes = processes;
    if (typed('mfaTimeout')) input.timeoutSeconds = o.mfaTimeout as number;
    for (const key of ['promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'] as const)
      if (typed(key)) input[key] = o[key] as boolean;
    return input;
  };
}

/** The flags of `input` that belong to none of `kind`'s (update: a DOMAIN check has no --mac). */
export function foreignFlags(kind: PostureCheckKind, input: KindInput): string[] {
  const mine = new Set(KIND_FLAGS[kind]);
  const used: Record<keyof KindInput, string> = {
    operatingSystems: 'os',
    domains: 'domain',
    macAddresses: 'mac',
    osType: 'osType',
    path: 'path',
    hashes: 'hash',
    signerFingerprint: 'signer',
    semantic: 'semantic',
    processes: 'process',
    timeoutSeconds: 'mfaTimeout',
    promptOnWake: 'promptOnWake',
    promptOnUnlock: 'promptOnUnlock',
    ignoreLegacyEndpoints: 'ignoreLegacyEndpoints',
  };
  return (Object.keys(input) as Array<keyof KindInput>)
    .map((k) => used[k])
    .filter((k) => !mine.has(k))
    .map(flagWord);
}

/**
 * The kind fields of a body from the flags. `current` is the check's `process` on update: a PROCESS check's process
 * is sent whole, so what the flags leave out keeps its value.
 */
export function kindBody(
  kind: PostureCheckKind,
  input: KindInput,
  current?: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  switch (kind) {
    case 'OS':
      if (input.operatingSystems) body.operatingSystems = input.operatingSystems;
      break;
    case 'DOMAIN':
      if (input.domains) body.domains = input.domains;
      break;
    case 'MAC':
      if (input.macAddresses) body.macAddresses = input.macAddresses;
      break;
    case 'PROCESS': {
      if (
        input.osType === undefined &&
        input.path === undefined &&
        !input.hashes &&
        input.signerFingerprint === undefined
      )
        break;
      const process: Record<string, unknown> = { ...(current ?? {}) };
      if (input.osType !== undefined) process.osType = input.osType;
      if (input.path !== undefined) process.path = input.path;
      if (input.hashes) process.hashes = input.hashes;
      if (input.signerFingerprint !== undefined) process.signerFingerprint = input.signerFingerprint;
      body.process = process;
      break;
    }
    case 'PROCESS_MULTI':
      if (input.semantic) body.semantic = input.semantic;
      if (input.processes) body.processes = input.processes;
      break;
    case 'MFA':
      for (const key of ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'] as const)
        if (input[key] !== undefined) body[key] = input[key];
      break;
  }
  return body;
}
