// The transit-router noun's own verbs: create writes the router's enrollment JWT as `ctl router create` does.
import { router } from '../../resources/router.js';
import type { NounModule } from '../nouns/verbs.js';
import { buildRouterCreate } from '../router/create.js';

export const verbs: NounModule['verbs'] = {
  create: (deps) => buildRouterCreate(deps, router),
};
