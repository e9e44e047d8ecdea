// `ctl identity service-configs`: an identity's own configs for services (OpenZiti's service-config overrides),
// listed, set and unset in one verb. Replaces the generic relation list, whose columns would say nothing useful.
import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ApiClient } from '../../client/types.js';
import { identity } from '../../resources/identity.js';
import { resource } from '../../resources/index.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, resolveId } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { asFormat } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { render } from '../output/render.js';

/** A service and a config, each by name or id, as typed: `web=web-intercept-laptop`. */
export interface ServiceConfigPair {
  service: string;
  config: string;
}

export interface ServiceConfigsOptions {
  identity: string;
  set: ServiceConfigPair[];
  unset: ServiceConfigPair[];
  format: OutputFormat;
  quiet?: boolean;
}

/** `SERVICE=CONFIG`, split at the first `=` (names with `=` in them are given by id). */
export function pair(value: string, previous: ServiceConfigPair[] | undefined): ServiceConfigPair[] {
  const eq = value.indexOf('=');
  if (eq <= 0 || eq === value.length - 1) throw new InvalidArgumentError('expected SERVICE=CONFIG (names or ids).');
  return [...(previous ?? []), { service: value.slice(0, eq), config: value.slice(eq + 1) }];
}

const COLUMNS = [
  { header: 'Service', field: 'service.name' },
  { header: 'Config', field: 'config.name' },
  { header: 'Service ID', field: 'serviceId', priority: 1 as const },
  { header: 'Config ID', field: 'configId', priority: 1 as const },
];

export function buildIdentityServiceConfigs(deps: Deps, run = runIdentityServiceConfigs): CommandUnknownOpts {
  const command = new Command('service-configs')
    .addArgument(nameArgument(identity, 'the identity'))
    .addOption(
      new Option('--set <service=config>', 'use CONFIG for SERVICE for this identity; repeat for several').argParser(
        pair,
      ),
    )
    .addOption(
      new Option(
        '--unset <service=config>',
        "stop using CONFIG's type override for SERVICE; repeat for several",
      ).argParser(pair),
    )
    .addOption(new Option('-q, --quiet', 'print nothing but the config ids, one per line'));
  withMeta(command, {
    description:
      "List, set or unset the identity's own configs for services: for this identity a config set here stands in for " +
      "the service's config of the same type (one per service " +
      'and config type; setting another of that type replaces it)',
    examples: [
      'ctl identity service-configs laptop-7',
      'ctl identity service-configs laptop-7 --set web=web-intercept-laptop',
      'ctl identity service-configs laptop-7 --unset web=web-intercept-laptop -o json',
    ],
  });
  return command.action(async (ref, o) => {
    await run(
      {
        identity: ref,
        set: o.set ?? [],
        unset: o.unset ?? [],
        format: asFormat(deps.globals().output),
        ...(o.quiet ? { quiet: true } : {}),
      },
      deps,
    );
  });
}

async function ids(
  api: ApiClient,
  pairs: readonly ServiceConfigPair[],
): Promise<Array<{ serviceId: string; configId: string }>> {
  const out = [];
  for (const p of pairs)
    out.push({
      serviceId: await resolveId(api, resource('service'), p.service),
      configId: await resolveId(api, resource('config'), p.config),
    });
  return out;
}

/** Unsets, then sets (so `--unset a=x --set a=y` ends with y), then lists what the identity has now. */
export async function runIdentityServiceConfigs(opts: ServiceConfigsOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const id = await resolveId(api, identity, opts.identity);
  const path = `${entityPath(identity, id)}/service-configs`;
  if (opts.unset.length) {
    await api.delete(path, { body: await ids(api, opts.unset) });
    deps.io.info(`unset ${opts.unset.length} service config${opts.unset.length === 1 ? '' : 's'}`);
  }
  if (opts.set.length) {
    await api.post(path, await ids(api, opts.set));
    deps.io.info(`set ${opts.set.length} service config${opts.set.length === 1 ? '' : 's'}`);
  }
  const page = await api.list<Record<string, unknown>>(path, { limit: 500 });
  const rows = opts.quiet ? page.data.map((r) => ({ id: r.configId })) : page.data;
  await render(deps.io, rows, {
    format: opts.format,
    columns: COLUMNS,
    quiet: opts.quiet,
    empty: `identity ${opts.identity} has no service configs of its own`,
  });
}
