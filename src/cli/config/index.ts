// The config noun's own verbs, added to the generic ones; registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildConfigCreate } from './create.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildConfigCreate(deps),
};
