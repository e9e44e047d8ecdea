import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ResourceDef } from '../../resources/types.js';
import { withMeta } from './meta.js';
import { noun } from './words.js';

/** The group command of a resource (`ctl identity`), named and aliased from its catalogue entry; verbs are added by the tree. */
export function buildNoun(def: ResourceDef): CommandUnknownOpts {
  const n = noun(def);
  const command = withMeta(new Command(n), {
    description: def.description,
    examples: [`ctl ${n} list`, `ctl ${n} --help`],
  });
  return command.aliases(def.cli?.aliases ?? []);
}
