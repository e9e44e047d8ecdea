// The posture-check noun's own verbs: `create <kind>` with readable flags per kind, and an `update` that knows them
// (the generic update would offer the kind's fields as raw JSON). Registered in src/cli/tree.ts with nounCommands.
import type { NounModule } from '../nouns/verbs.js';
import { buildPostureCheckCreate } from './create.js';
import { buildPostureCheckUpdate } from './update.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildPostureCheckCreate(deps),
  update: (deps) => buildPostureCheckUpdate(deps),
};
