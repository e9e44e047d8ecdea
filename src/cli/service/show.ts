// `ctl service show NAME`: the generic show, with the service's configs by name and type for people (ids stay in
// json and yaml, for scripts).
import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { resource } from '../../resources/index.js';
import { service } from '../../resources/service.js';
import type { Deps } from '../deps.js';
import { withMeta } from '../generic/meta.js';
import { entityPath, fetchEntity } from '../generic/resolve.js';
import { nameArgument } from '../generic/words.js';
import { asFormat, isHuman } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';

export interface ServiceShowOptions {
  ref: string;
  format: OutputFormat;
}

export function buildServiceShow(deps: Deps, run = runServiceShow): CommandUnknownOpts {
  const command = withMeta(new Command('show').addArgument(nameArgument(service, 'the service to show')), {
    description: 'Show one service in detail, with its configs by name and type',
    examples: ['ctl service show web', 'ctl service show web -o json'],
  });
  return command.action(async (ref) => run({ ref, format: asFormat(deps.globals().output) }, deps));
}

export async function runServiceShow(opts: ServiceShowOptions, deps: Deps): Promise<void> {
  const api = await deps.api();
  const entity = await fetchEntity(api, service, opts.ref);
  const ids = (entity.configs as string[] | undefined) ?? [];
  let shown = entity;
  if (isHuman(opts.format) && ids.length > 0) {
    const page = await api.list<{ id: string; name: string; configType?: { name?: string } }>(
      `${entityPath(service, entity.id)}/configs`,
      { limit: 500 },
    );
    const named = new Map(page.data.map((c) => [c.id, `${c.name} (${c.configType?.name ?? 'unknown type'})`]));
    shown = { ...entity, configs: ids.map((id) => named.get(id) ?? id) };
  }
  await renderOne(deps.io, shown, { format: opts.format, def: resource('service') });
}
