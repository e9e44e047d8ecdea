// The flags `policy create` and `policy update` share: role sets, semantic and tags.
import { Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { SEMANTICS } from '../../resources/common.js';
import { addDryRun } from '../generic/dry-run.js';
import { UsageError } from '../../console/errors.js';
import { completeWith } from '../completion/hints.js';
import { roleList, tagPair, type TagValue } from '../generic/fields.js';
import { KINDS, type PolicyKind, roleTarget } from './kinds.js';

/** Every role flag of every kind, once, with the resource its values name (for completion and help). */
const ROLE_FLAGS = [
  ...new Map(
    KINDS.flatMap((k) => Object.entries(k.roles).map(([flag, field]) => [flag, roleTarget(k.def, field)] as const)),
  ).entries(),
];

export interface PolicyFlagValues {
  roles: Record<string, string[]>;
  semantic?: string;
  tags?: Record<string, TagValue>;
}

export function addPolicyFlags<C extends CommandUnknownOpts>(command: C, semanticDefault?: string): C {
  for (const [flag, target] of ROLE_FLAGS) {
    const option = new Option(
      `--${flag} <roles>`,
      `${target.plural.replace(/-/g, ' ')} it selects: #attribute, @name-or-id or #all (comma-separated or repeated)`,
    ).argParser(roleList);
    command.addOption(completeWith(option, { kind: 'role', resource: target.name, list: true }));
  }
  const semantic = new Option(
    '--semantic <semantic>',
    'AllOf: an entity needs every #attribute of a role set; AnyOf: any one',
  ).choices(SEMANTICS);
  command.addOption(semanticDefault ? semantic.default(semanticDefault) : semantic);
  command.addOption(
    new Option('--tag <key=value>', 'a tag (key:=JSON for a number, boolean or null); repeat for several').argParser(
      tagPair,
    ),
  );
  addDryRun(command);
  return command;
}

/** The policy flags given on the command line (role flags by name, e.g. `identities`). */
export function readPolicyFlags(command: CommandUnknownOpts): PolicyFlagValues {
  const o = command.opts();
  const roles: Record<string, string[]> = {};
  for (const [flag] of ROLE_FLAGS) {
    const value = o[flag.replace(/-(.)/g, (_, c: string) => c.toUpperCase())] as string[] | undefined;
    if (value !== undefined) roles[flag] = value;
  }
  return { roles, semantic: o.semantic as string | undefined, tags: o.tag as Record<string, TagValue> | undefined };
}

/** Refuses role flags that do not apply to the kind (`--routers` on a dial policy). */
export function checkRoleFlags(kind: PolicyKind, values: PolicyFlagValues): void {
  for (const flag of Object.keys(values.roles)) {
    if (!(flag in kind.roles)) {
      throw new UsageError(`--${flag} does not apply to ${kind.kind} policies`, [
        `${kind.kind} policies take ${Object.keys(kind.roles)
          .map((f) => `--${f}`)
          .join(', ')}`,
      ]);
    }
  }
}
