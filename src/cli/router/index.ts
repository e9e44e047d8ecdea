// The router noun's own verbs (edge routers), added to the generic ones when `ctl router ...` runs; registered in
// src/cli/tree.ts with nounCommands. Transit routers are the `transit-router` noun (src/cli/transit-router/).
import { edgeRouter } from '../../resources/edge-router.js';
import type { NounModule } from '../nouns/verbs.js';
import { buildRouterCreate } from './create.js';
import { buildRouterReEnroll } from './re-enroll.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildRouterCreate(deps, edgeRouter),
  're-enroll': (deps) => buildRouterReEnroll(deps),
};
