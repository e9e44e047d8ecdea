// The service noun's own verbs, added to the generic ones; registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildServiceShow } from './show.js';

export const verbs: NounModule['verbs'] = {
  show: (deps) => buildServiceShow(deps),
};
