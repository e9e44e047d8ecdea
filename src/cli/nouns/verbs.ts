// The verbs of a catalogue noun, derived from its definition: loaded (as a chunk of its own) only when a noun is
// used, with the noun's own module if it has one (tree.ts: nounCommands).
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { resource } from '../../resources/index.js';
import type { Operation, ResourceDef } from '../../resources/types.js';
import type { Deps } from '../deps.js';
import { withTextReferences } from '../text-references.js';
import { buildCreate, hasGenericCreate } from '../generic/create.js';
import { buildDelete } from '../generic/delete.js';
import { buildNoun } from '../generic/noun.js';
import { buildList } from '../generic/list.js';
import { buildRelationList } from '../generic/relation.js';
import { buildShow } from '../generic/show.js';
import { buildUpdate } from '../generic/update.js';
import type { NounSummary } from './summary.js';

export type VerbBuilder = (deps: Deps, def: ResourceDef) => CommandUnknownOpts | undefined;

/**
 * What a noun's own module (e.g. src/cli/identity/index.ts) exports: verbs by name. A builder replaces the generic
 * verb of that name or adds a new one; null removes a generic verb the noun does not want.
 */
export interface NounModule {
  verbs: Readonly<Record<string, VerbBuilder | null>>;
}

/**
 * The generic verbs, in the order help lists them, each with the catalogue operation it needs. `create` is generic
 * where every create field can be a flag (hasGenericCreate); otherwise it comes from the noun's own module.
 */
const STANDARD: ReadonlyArray<readonly [verb: string, op: Operation, build: VerbBuilder | undefined]> = [
  ['list', 'list', (deps, def) => buildList(deps, def)],
  ['show', 'get', (deps, def) => buildShow(deps, def)],
  ['create', 'create', (deps, def) => (hasGenericCreate(def) ? buildCreate(deps, def) : undefined)],
  ['update', 'patch', (deps, def) => buildUpdate(deps, def)],
  ['delete', 'delete', (deps, def) => buildDelete(deps, def)],
];

/** The noun command of a catalogue resource with all its verbs, or only `verb` where that names one of them. */
export function buildNounCommand(
  deps: Deps,
  summary: NounSummary,
  own?: NounModule['verbs'],
  verb?: string,
): CommandUnknownOpts {
  return addVerbs(buildNoun(summary), deps, summary.resource, own, verb);
}

/**
 * Adds the verbs of `resourceName` to its noun command: the generic verbs its operations allow, then the noun's
 * own new verbs, then its relation lists (`identity authenticators`); own verbs replace generic ones in place.
 * With `only` naming one of them (the line runs `ctl identity list`), that verb alone: commander dispatches to it
 * and to no other, and building the others (create's flags, their help) is most of a noun's start. Any other word
 * (an alias, a typo to suggest for) gets them all.
 */
export function addVerbs(
  noun: CommandUnknownOpts,
  deps: Deps,
  resourceName: string,
  own: NounModule['verbs'] = {},
  only?: string,
): CommandUnknownOpts {
  const def = withTextReferences(resource(resourceName));
  const builders = new Map<string, VerbBuilder | undefined>();
  for (const [verb, op, build] of STANDARD) builders.set(verb, def.operations.includes(op) ? build : undefined);
  const relations = Object.keys(def.relations ?? {});
  for (const verb of Object.keys(own))
    if (!builders.has(verb) && !relations.includes(verb)) builders.set(verb, undefined);
  for (const relation of relations) {
    if (STANDARD.some(([verb]) => verb === relation))
      throw new Error(`${def.name}: relation '${relation}' has the name of a verb`);
    builders.set(relation, (d, parent) => buildRelationList(d, parent, relation));
  }
  // Map.set keeps a key's place: an own verb replaces a generic one where it stands.
  for (const [verb, build] of Object.entries(own)) builders.set(verb, build ?? undefined);
  const verbCommand = (verb: string) => {
    const command = builders.get(verb)?.(deps, def);
    if (command && command.name() !== verb) throw new Error(`'${noun.name()} ${verb}' is built as '${command.name()}'`);
    return command;
  };
  const selected = only === undefined ? undefined : verbCommand(only);
  if (selected) return noun.addCommand(selected);
  for (const verb of builders.keys()) {
    const command = verbCommand(verb);
    if (command) noun.addCommand(command);
  }
  return noun;
}
