import { resource } from '../../../resources/index.js';
import type { Runtime } from '../../runtime.js';
import type { Ctx, Route } from '../../server/types.js';
import { withBody } from '../kit/body.js';
import { createResource, updateResource } from '../kit/crud.js';
import { standardRoute } from '../kit/describe.js';

const terminator = resource('terminator');

/**
 * OpenZiti reads an empty precedence as the default one (its model parser skips the enum check of an empty value), and
 * OpenZiti's console sends `precedence: ""` when none was picked.
 */
function emptyPrecedence(body: Record<string, unknown>): Record<string, unknown> {
  if (body.precedence === '') delete body.precedence;
  return body;
}

/**
 * OpenZiti's console edits a terminator by sending its whole form again, `identity` and `identitySecret` included,
 * which OpenZiti's update models do not have (its parser drops them). Here they are dropped when they change nothing
 * (the stored identity, or empty); any other value is refused by the update schema, naming the field (set at creation
 * only), rather than ignored.
 */
async function update(rt: Runtime, ctx: Ctx, verb: 'replace' | 'patch') {
  const existing = await rt.store.repoFor(terminator).get(ctx.params.id);
  const body = withBody(ctx, (b) => {
    if (b.identity === '' || b.identity === existing.identity) delete b.identity;
    if (b.identitySecret === '') delete b.identitySecret;
    return emptyPrecedence(b);
  });
  return updateResource(rt, terminator, body, verb);
}

export function routes(rt: Runtime): Route[] {
  return [
    standardRoute(terminator, 'create', (ctx) => createResource(rt, terminator, withBody(ctx, emptyPrecedence))),
    standardRoute(terminator, 'replace', (ctx) => update(rt, ctx, 'replace')),
    standardRoute(terminator, 'patch', (ctx) => update(rt, ctx, 'patch')),
  ];
}
