// The service noun's own verbs, replacing generic ones; registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildServiceCreate } from './create.js';
import { buildServiceShow } from './show.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildServiceCreate(deps),
  show: (deps) => buildServiceShow(deps),
};
