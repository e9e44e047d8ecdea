import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { UsageError } from '../../console/errors.js';
import { POSTURE_CHECK_TYPES, postureCheck, type PostureCheckKind } from '../../resources/posture-check.js';
import type { Deps } from '../deps.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { addFieldFlags, collectFields, type FieldInput } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, fetchEntity } from '../generic/resolve.js';
import { addAttributeEdits, attributeEdits, mergeAttributes } from '../generic/update.js';
import { nameAfter, nameArgument } from '../generic/words.js';
import { printWritten } from '../generic/written.js';
import { addKindFlags, foreignFlags, kindBody, type KindInput } from './kinds.js';

export interface PostureCheckUpdateOptions {
  ref: string;
  /** --name, -a and --tags. */
  input: FieldInput;
  kindInput: KindInput;
  addAttributes?: string[];
  removeAttributes?: string[];
}

/** Fields the generic flags cover here: the rest (the kind and its fields) have readable flags of their own. */
const GENERIC_EXCLUDED = Object.keys(postureCheck.fields).filter((f) => f !== 'name' && f !== 'roleAttributes');

export function buildPostureCheckUpdate(deps: Deps, run = runPostureCheckUpdate): CommandUnknownOpts {
  const command = withMeta(
    new Command('update').addArgument(nameArgument(postureCheck, 'the posture check to change')),
    {
      description:
        'Change a posture check: its name, attributes, tags, and the ' +
        "flags of its kind (as for create); a check's kind never changes",
      examples: [
        'ctl posture-check update win-10 --os Windows:10.0.22000 --os macOS:14',
        'ctl posture-check update corp --domain corp.example.com,lab.example.com',
        'ctl posture-check update av --hash SHA512HEX',
        'ctl posture-check update timeout --mfa-timeout 10m --no-prompt-on-wake',
        'ctl posture-check update lab --name lab-macs --add-attributes lab',
      ],
    },
  );
  const flags = addFieldFlags(command, postureCheck, 'patch', GENERIC_EXCLUDED);
  addAttributeEdits(command, postureCheck);
  const readKind = addKindFlags(command, POSTURE_CHECK_TYPES, 'update');
  addDryRun(command);
  return command.action(async (ref, _opts, cmd) => {
    const input = collectFields(cmd, flags);
    const opts: PostureCheckUpdateOptions = { ref, input, kindInput: readKind(cmd), ...attributeEdits(cmd) };
    if (
      Object.keys(opts.input.body).length === 0 &&
      Object.keys(opts.kindInput).length === 0 &&
      !opts.addAttributes &&
      !opts.removeAttributes
    ) {
      throw new UsageError('nothing to update', [
        "give --name, -a, --add-attributes, --remove-attributes, --tags, or the flags of the check's kind (see --help)",
      ]);
    }
    await dryRunnable(cmd, deps, (d) => run(opts, d));
  });
}

/**
 * Reads the check (its kind decides which flags apply), then PATCHes what the flags say, with the kind repeated as
 * OpenZiti's clients send it. A PROCESS check's process goes whole, merged over the current one.
 */
export async function runPostureCheckUpdate(opts: PostureCheckUpdateOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const current = await fetchEntity(api, postureCheck, opts.ref);
  const kind = current.typeId as PostureCheckKind;
  const foreign = foreignFlags(kind, opts.kindInput);
  if (foreign.length)
    throw new UsageError(
      `"${opts.ref}" is ${kind === 'OS' || kind === 'MFA' ? 'an' : 'a'} ${kind} check: ` +
        `${foreign.join(', ')} ${foreign.length === 1 ? 'does' : 'do'} not apply to it`,
    );
  const body: Record<string, unknown> = {
    ...opts.input.body,
    ...kindBody(kind, opts.kindInput, current.process as Record<string, unknown> | undefined),
  };
  if (opts.addAttributes || opts.removeAttributes) {
    const before = Array.isArray(current.roleAttributes) ? (current.roleAttributes as string[]) : [];
    const after = mergeAttributes(before, opts.addAttributes ?? [], opts.removeAttributes ?? []);
    if (after.length !== before.length || after.some((a) => !before.includes(a))) body.roleAttributes = after;
  }
  if (Object.keys(body).length === 0) {
    deps.io.info(`posture check "${opts.ref}" is already up to date`);
  } else {
    await api.patch(entityPath(postureCheck, current.id), { typeId: kind, ...body }, { api: postureCheck.api });
    deps.io.info(`updated posture check "${nameAfter(opts.ref, body)}"`);
  }
  await printWritten(deps, postureCheck, current.id);
}
