// `ctl service create NAME --config NAME-OR-ID ...`: the generic create, with the service's configs given one per
// flag by name or id (`--config web-intercept --config web-host`), as they are named everywhere else.
import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { resource } from '../../resources/index.js';
import { service } from '../../resources/service.js';
import { completeWith } from '../completion/hints.js';
import type { Deps } from '../deps.js';
import { runCreate } from '../generic/create.js';
import { addFieldFlags, collectFields } from '../generic/fields.js';
import type { FieldInput } from '../generic/fields.js';
import { withMeta } from '../generic/meta.js';
import { resolveId } from '../generic/resolve.js';

export interface ServiceCreateOptions {
  name: string;
  /** Configs by name or id, in the order given. */
  configs: string[];
  input: FieldInput;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function buildServiceCreate(deps: Deps, run = runServiceCreate): CommandUnknownOpts {
  const command = withMeta(new Command('create').argument('<name>', 'name of the new service'), {
    description: 'Create a service, with its configs by name or id (at most one per config type); prints its id',
    examples: [
      'ctl service create web -a internal --config web-intercept --config web-host --encryption-required',
      'ctl service create db --config db-intercept --no-encryption-required',
    ],
  });
  // Every other field is a flag derived from the catalogue; configs are given one per --config instead.
  const flags = addFieldFlags(command, service, 'create', ['name', 'configs']);
  command.addOption(
    completeWith(new Option('--config <name-or-id>', 'a config of the service; repeat for each (at most one per config type)').argParser(collect), {
      kind: 'resource',
      resource: 'config',
      list: true,
    }),
  );
  return command.action(async (name, _opts, cmd) => {
    const configs = (cmd.opts() as { config?: string[] }).config ?? [];
    await run({ name, configs, input: collectFields(cmd, flags) }, deps);
  });
}

export async function runServiceCreate(opts: ServiceCreateOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const configs = [];
  for (const ref of opts.configs) configs.push(await resolveId(api, resource('config'), ref));
  const input = configs.length ? { ...opts.input, body: { ...opts.input.body, configs } } : opts.input;
  await runCreate(service, { name: opts.name, input }, deps);
}
