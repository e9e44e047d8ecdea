import { ApiError } from '../../protocol/errors.js';
import { FIELD_LIMITS, FORBIDDEN, visible } from './limits.js';
import type { ApiName, Route } from './types.js';

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  routes: Map<string, Route>;
}

const newNode = (): Node => ({ literal: new Map(), routes: new Map() });

/** Collapses duplicate slashes and drops a trailing one, so `//identities/` is `/identities`. */
export function normalisePath(path: string): string {
  // Every request's path is normalised: one already so (nearly all) is answered without running a regex over it.
  const collapsed = path.includes('//') ? path.replace(/\/{2,}/g, '/') : path;
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/**
 * A segment tree per API. Registration fails at boot on a duplicate route, so a mistake in the catalogue or a
 * plugin is found before the first request.
 */
export class Router {
  private readonly roots: Record<ApiName, Node> = { management: newNode(), client: newNode(), fabric: newNode() };

  add(route: Route): void {
    const apis: ApiName[] = route.api === 'both' ? ['management', 'client'] : [route.api];
    for (const api of apis) {
      let node = this.roots[api];
      for (const segment of segments(route.path)) {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (param) {
          if (node.param && node.param.name !== param[1]) {
            throw new Error(`route ${route.path}: parameter {${param[1]}} clashes with {${node.param.name}}`);
          }
          node.param ??= { name: param[1], node: newNode() };
          node = node.param.node;
        } else {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, (next = newNode()));
          node = next;
        }
      }
      if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${api} ${route.path}`);
      node.routes.set(route.method, route);
    }
  }

  /** Finds the route; unknown paths are 404 NOT_FOUND, known paths with another method 405. */
  match(api: ApiName, method: string, path: string): { route: Route; params: Record<string, string> } {
    const params: Record<string, string> = {};
    let node: Node | undefined = this.roots[api];
    const p = normalisePath(path);
    // Segment by segment along the string: splitting it made two arrays per request.
    for (let start = 1; node && start < p.length; ) {
      const slash = p.indexOf('/', start);
      const end = slash < 0 ? p.length : slash;
      const segment = p.slice(start, end);
      start = end + 1;
      const literal: Node | undefined = node.literal.get(segment);
      if (literal) node = literal;
      else if (node.param) {
        params[node.param.name] = decodeSegment(segment);
        node = node.param.node;
      } else node = undefined;
    }
    if (!node || node.routes.size === 0) {
      throw new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message: `no route for ${method} ${path}` } });
    }
    const route = node.routes.get(method);
    if (!route) throw new ApiError('METHOD_NOT_ALLOWED', { message: `${method} is not supported on ${path}` });
    return { route, params };
  }

  /** Every registered route, for the served spec. */
  routes(api: ApiName): Route[] {
    const out: Route[] = [];
    const walk = (node: Node) => {
      out.push(...node.routes.values());
      for (const child of node.literal.values()) walk(child);
      if (node.param) walk(node.param.node);
    };
    walk(this.roots[api]);
    return out;
  }
}

function segments(path: string): string[] {
  return normalisePath(path).split('/').filter(Boolean);
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message: `malformed path segment '${segment}'` } });
  }
}

/**
 * Path parameters are ids: one that could never have been stored (control characters, NUL among them, or longer
 * than any id) names nothing, so it is 404 before any database sees it. Checked once the caller is authorised, so
 * that who may not use the route learns nothing from it.
 */
export function refuseImpossibleIds(params: Record<string, string>): void {
  for (const value of Object.values(params)) {
    if (value.length > FIELD_LIMITS.refMaxLength || FORBIDDEN.test(value)) {
      const message = `no entity has the id "${visible(value)}"`;
      throw new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message } });
    }
  }
}
