import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { postureCheck, type PostureCheckKind } from '../../resources/posture-check.js';
import type { Deps } from '../deps.js';
import { announceCreated, createEntity } from '../generic/create.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { addFieldFlags, collectFields, type FieldInput } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { addKindFlags, kindBody, type KindInput } from './kinds.js';

export interface PostureCheckCreateOptions {
  kind: PostureCheckKind;
  name: string;
  /** Role attributes and tags. */
  input: FieldInput;
  /** The kind's own flags. */
  kindInput: KindInput;
}

/**
 * Each `ctl posture-check create <word>`: the kind it makes, what it checks, its examples, what it cannot go without.
 */
const KINDS: ReadonlyArray<{
  word: string;
  kind: PostureCheckKind;
  description: string;
  examples: string[];
  needs?: (i: KindInput) => string | undefined;
}> = [
  {
    word: 'os',
    kind: 'OS',
    description: 'Create an OS check: the device runs one of these operating systems, at one of these versions',
    examples: [
      'ctl posture-check create os win-10 --os Windows:10.0.19041,10.0.22000 --os macOS:13',
      "ctl posture-check create os modern --os 'Windows:>=10.0.22000' --os Linux -a laptops",
    ],
    needs: (i) =>
      i.operatingSystems
        ? undefined
        : 'give at least one --os, e.g. --os Windows:10.0.19041 or --os Linux (any version)',
  },
  {
    word: 'domain',
    kind: 'DOMAIN',
    description: 'Create a domain check: the (Windows) device is joined to one of these domains',
    examples: [
      'ctl posture-check create domain corp --domain corp.example.com',
      'ctl posture-check create domain corp --domain corp.example.com,lab.example.com -a windows',
    ],
    needs: (i) => (i.domains?.length ? undefined : 'give at least one --domain'),
  },
  {
    word: 'mac',
    kind: 'MAC',
    description: 'Create a MAC address check: the device has one of these MAC addresses',
    examples: [
      'ctl posture-check create mac lab --mac 00:11:22:33:44:55',
      'ctl posture-check create mac lab --mac 00:11:22:33:44:55 --mac 66-77-88-99-aa-bb',
    ],
    needs: (i) => (i.macAddresses?.length ? undefined : 'give at least one --mac'),
  },
  {
    word: 'process',
    kind: 'PROCESS',
    description:
      'Create a process check: this executable runs on the device ' +
      '(optionally with one of these hashes, signed by this certificate)',
    examples: [
      "ctl posture-check create process av --os-type Windows --path 'C:\\Program Files\\AV\\av.exe'",
      'ctl posture-check create process av --os-type Linux --path /usr/bin/av --hash SHA512HEX --signer SHA1HEX',
    ],
    needs: (i) => (i.osType && i.path ? undefined : 'give --os-type and --path'),
  },
  {
    word: 'process-multi',
    kind: 'PROCESS_MULTI',
    description:
      'Create a multi-process check: all (AllOf, the default) or any (AnyOf) of these executables run on the device',
    examples: [
      'ctl posture-check create process-multi av --semantic AnyOf ' +
        "--process 'Windows:C:\\av.exe' --process Linux:/usr/bin/av",
      'ctl posture-check create process-multi edr --process ' +
        'Linux:/usr/bin/edr --hash SHA512HEX --process Linux:/usr/bin/av',
    ],
    needs: (i) => (i.processes?.length ? undefined : 'give at least one --process OS:PATH'),
  },
  {
    word: 'mfa',
    kind: 'MFA',
    description:
      'Create an MFA check: the identity passed MFA (within --mfa-timeout, and again on wake or unlock if asked)',
    examples: [
      'ctl posture-check create mfa timeout --mfa-timeout 300 --prompt-on-wake',
      'ctl posture-check create mfa strict --mfa-timeout 1h --prompt-on-wake --prompt-on-unlock -a admins',
    ],
  },
];

/** Flags every kind takes: role attributes (-a) and tags; the name is the argument, the kind the subcommand. */
const COMMON_EXCLUDED = Object.keys(postureCheck.fields).filter((f) => f !== 'roleAttributes');

export function buildPostureCheckCreate(deps: Deps, run = runPostureCheckCreate): CommandUnknownOpts {
  const create = withMeta(new Command('create'), {
    description: 'Create a posture check of one kind (os, domain, mac, process, process-multi, mfa); prints its id',
    examples: KINDS.map((k) => k.examples[0]),
  });
  for (const k of KINDS) {
    const sub = withMeta(new Command(k.word).argument('<name>', 'name of the new posture check'), {
      description: `${k.description}; prints its id`,
      examples: k.examples,
    });
    const flags = addFieldFlags(sub, postureCheck, 'create', COMMON_EXCLUDED);
    const readKind = addKindFlags(sub, [k.kind], 'create');
    addDryRun(sub);
    sub.action(async (name, _opts, cmd) => {
      const kindInput = readKind(cmd);
      const missing = k.needs?.(kindInput);
      if (missing) throw new UsageError(`a ${k.kind} check needs what it checks`, [missing]);
      const input = collectFields(cmd, flags);
      await dryRunnable(cmd, deps, (d) => run({ kind: k.kind, name, input, kindInput }, d));
    });
    create.addCommand(sub);
  }
  return create;
}

export async function runPostureCheckCreate(opts: PostureCheckCreateOptions, deps: Deps): Promise<void> {
  const base: Record<string, unknown> = { name: opts.name, typeId: opts.kind, ...kindBody(opts.kind, opts.kindInput) };
  // The API requires a semantic for PROCESS_MULTI; AllOf (every process) is the stricter, and the usual, choice.
  if (opts.kind === 'PROCESS_MULTI' && base.semantic === undefined) base.semantic = 'AllOf';
  const id = await createEntity(await deps.api(), postureCheck, base, opts.input);
  await announceCreated(deps, postureCheck, opts.name, id);
}
