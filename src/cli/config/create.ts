// `ctl config create NAME --type TYPE --data JSON|@FILE|-`: the data is checked against the type's schema before it
// is sent, with the controller's own rules (src/protocol/config-data.ts), so a mistake names its path at once.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { RejectedError, UsageError } from '../../console/errors.js';
import { checkData, compilable, configSchemaAjv } from '../../protocol/config-data.js';
import { config } from '../../resources/config.js';
import { resource } from '../../resources/index.js';
import type { Deps } from '../deps.js';
import { announceCreated, createEntity } from '../generic/create.js';
import { addDryRun, dryRunnable } from '../generic/dry-run.js';
import { addFieldFlags, collectFields, jsonObject } from '../generic/fields.js';
import type { FieldInput } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { suggester } from '../generic/suggest.js';
import { shellQuote } from '../../console/command-hint.js';
import { lookup } from '../generic/resolve.js';
import { completeWith } from '../completion/hints.js';

export interface ConfigCreateOptions {
  name: string;
  /** The config type, by name or id. */
  type: string;
  data: Record<string, unknown>;
  input: FieldInput;
}

export function buildConfigCreate(deps: Deps, run = runConfigCreate): CommandUnknownOpts {
  const base = withMeta(new Command('create').argument('<name>', 'name of the new config'), {
    description:
      'Create a config of a config type; the data is checked ' +
      "against the type's schema before it is sent; prints its id",
    examples: [
      'ctl config create web-intercept --type intercept.v1 --data ' +
        `'{"protocols":["tcp"],"addresses":["web.ziti"],"portRanges":[{"low":443,"high":443}]}'`,
      'ctl config create web-host --type host.v1 --data @web-host.json',
      'cat web-host.json | ctl config create web-host --type host.v1 --data -',
    ],
  });
  // The type and the data are the two things a config is made of: short flags, required.
  const flags = addFieldFlags(base, config, 'create', ['name', 'configTypeId', 'data']);
  const command = base
    .addOption(
      completeWith(new Option('--type <name-or-id>', 'the config type, e.g. intercept.v1, host.v1 (required)'), {
        kind: 'resource',
        resource: 'config-type',
      }),
    )
    // The spelling every other reference flag has (`--auth-policy` for authPolicyId), kept working.
    .addOption(
      completeWith(new Option('--config-type <name-or-id>', 'the same as --type').hideHelp().conflicts('type'), {
        kind: 'resource',
        resource: 'config-type',
      }),
    )
    .addOption(
      new Option('--data <json>', 'the data: a JSON object, @FILE to read it from a file, - from stdin')
        .argParser(jsonObject)
        .makeOptionMandatory(),
    );
  return addDryRun(command).action(async (name, o, cmd) => {
    const type = o.type ?? o.configType;
    if (type === undefined) {
      const list = (await suggester(deps))('ctl config-type list');
      throw new UsageError("required option '--type <name-or-id>' not specified", [
        `e.g. --type intercept.v1 (${list} shows the types)`,
      ]);
    }
    await dryRunnable(cmd, deps, (d) => run({ name, type, data: o.data, input: collectFields(cmd, flags) }, d));
  });
}

/**
 * Refuses data that fails the type's schema, naming the path, as the controller would. A schema this side cannot
 * compile (a draft it does not know) is left to the controller.
 */
export function checkAgainstType(
  type: Record<string, unknown>,
  data: Record<string, unknown>,
  suggest = (command: string) => command,
): void {
  if (!type.schema || typeof type.schema !== 'object') return;
  let validate: ReturnType<ReturnType<typeof configSchemaAjv>['compile']>;
  try {
    validate = configSchemaAjv().compile(compilable(type.schema));
  } catch {
    return;
  }
  const failure = checkData(validate, data);
  if (failure) {
    // Exit 6, as when the controller refuses it: scripts see one outcome wherever the data was checked.
    throw new RejectedError(
      `--data does not satisfy the schema of config type ${String(type.name)}: ${failure.reason}`,
      [
        `field: ${failure.field}`,
        `value: ${JSON.stringify(failure.value) ?? '(none)'}`,
        `see the schema: ${suggest(`ctl config-type show ${shellQuote(String(type.name))} -o json`)}`,
      ],
    );
  }
}

export async function runConfigCreate(opts: ConfigCreateOptions, deps: Deps): Promise<void> {
  const api: ApiClient = await deps.api();
  const type = await lookup(api, resource('config-type'), opts.type);
  checkAgainstType(type, opts.data, await suggester(deps));
  const id = await createEntity(api, config, { name: opts.name, configTypeId: type.id, data: opts.data }, opts.input);
  await announceCreated(deps, config, opts.name, id);
}
