import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { asFormat } from '../output/formats.js';
import type { OutputFormat } from '../output/formats.js';
import { renderOne } from '../output/render.js';
import { withMeta } from './meta.js';
import { fetchEntity } from './resolve.js';
import { nameArgument, noun, refArgument, requireOperation } from './words.js';

export interface ShowOptions {
  def: ResourceDef;
  ref: string;
  format: OutputFormat;
}

export function buildShow(deps: Deps, def: ResourceDef, run = runShow): CommandUnknownOpts {
  requireOperation(def, 'get', 'show');
  const arg = refArgument(def);
  const example = arg === 'id' ? `ctl ${noun(def)} show 3x9fQz1Ab -o yaml` : `ctl ${noun(def)} show laptop-7 -o json`;
  const command = withMeta(new Command('show').addArgument(nameArgument(def, `the ${def.label} to show`)), {
    description: `Show one ${def.label} in detail`,
    examples: [example],
  });
  return command.action(async (ref) => run({ def, ref, format: asFormat(deps.globals().output) }, deps));
}

export async function runShow(opts: ShowOptions, deps: Deps): Promise<void> {
  const entity = await fetchEntity(await deps.api(), opts.def, opts.ref);
  await renderOne(deps.io, entity, { format: opts.format, def: opts.def });
}
