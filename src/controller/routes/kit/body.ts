import type { Ctx } from '../../server/types.js';

/**
 * The request as a handler reads it, with its JSON object body passed through `change` first: for clients whose
 * bodies carry fields OpenZiti's parser drops (its console's forms), before the body meets the strict schemas.
 * A body that is not an object is left as it is, for the schema to refuse.
 */
export function withBody(ctx: Ctx, change: (body: Record<string, unknown>) => Record<string, unknown>): Ctx {
  return {
    ...ctx,
    json: async () => {
      const body = await ctx.json();
      return body && typeof body === 'object' && !Array.isArray(body)
        ? change({ ...(body as Record<string, unknown>) })
        : body;
    },
  };
}
