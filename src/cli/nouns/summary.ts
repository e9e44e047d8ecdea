// What the root command knows of each catalogue noun: enough to list it in `ctl --help`, complete its name and
// select it from argv, and nothing more. The resource definitions themselves (fields, columns, relations) are
// loaded with the noun, so start-up does not grow with the catalogue: scripts/build.mjs replaces this module in
// the bundle by its value, computed at build time. Tests and tsx run it as written, from the catalogue.
import { CATALOGUE } from '../../resources/index.js';
import type { ResourceDef } from '../../resources/types.js';

export interface NounSummary {
  /** The word on the command line, e.g. `auth-policy`. */
  noun: string;
  /** The catalogue name of the resource, to load its definition with. */
  resource: string;
  aliases: readonly string[];
  description: string;
  /** Heading in `ctl --help`, without its colon. */
  group: string;
  /** The plural in API paths and the label in messages (`an identity named x already exists`). */
  plural: string;
  label: string;
}

/** Where a noun is listed when its catalogue entry names no group. */
export const DEFAULT_GROUP = 'Resources';

export function summaryOf(def: ResourceDef): NounSummary | undefined {
  if (!def.cli) return undefined;
  return {
    noun: def.cli.noun,
    resource: def.name,
    aliases: def.cli.aliases ?? [],
    description: def.description,
    group: def.cli.group ?? DEFAULT_GROUP,
    plural: def.plural,
    label: def.label,
  };
}

/** Every resource with a `cli` entry, in catalogue order. */
export const NOUNS: readonly NounSummary[] = CATALOGUE.flatMap((def) => summaryOf(def) ?? []);
