import { Command } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import type { NounSummary } from '../nouns/summary.js';
import { withMeta } from './meta.js';

/**
 * The group command of a resource (`ctl identity`), named and aliased from its catalogue summary. Cheap on
 * purpose: the root builds one for every noun, and its verbs are added only when the noun is used (nouns/verbs.ts).
 */
export function buildNoun(summary: NounSummary): CommandUnknownOpts {
  const n = summary.noun;
  const command = withMeta(new Command(n), {
    description: summary.description,
    examples: [`ctl ${n} list`, `ctl ${n} --help`],
  });
  return command.aliases(summary.aliases);
}
