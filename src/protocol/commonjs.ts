/**
 * The exports of a CommonJS package loaded with `await import()`. Node's loader offers them both as named exports
 * and as `default`; in the bundle (scripts/build.mjs) a lazily loaded CommonJS chunk offers only `default`.
 * Use it for CommonJS packages (undici, yaml), never for ES modules, whose `default` means something else.
 */
export function commonJs<T>(mod: T): T extends { default: infer D } ? D : T {
  return ((mod as { default?: unknown }).default ?? mod) as T extends { default: infer D } ? D : T;
}
