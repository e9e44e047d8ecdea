// The service noun's own verb: `show` with configs by name (create is the generic one: `--config` takes names or
// ids, repeated or comma-separated). Registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildServiceShow } from './show.js';

export const verbs: NounModule['verbs'] = {
  show: (deps) => buildServiceShow(deps),
};
