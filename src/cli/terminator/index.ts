// The terminator noun's own verbs: create (the identity secret comes from a file, so the generic create, which
// takes every field as a flag, does not fit). Registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildTerminatorCreate } from './create.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildTerminatorCreate(deps),
};
