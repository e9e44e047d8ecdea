/**
 * What shell completion offers beyond commander's own data (subcommands, flags, `choices`): entity names for name
 * arguments and name-taking flags, profile names for --profile, fixed values `choices` cannot hold. Builders attach
 * a hint to the commander Argument or Option (or Command, for the words after its operands); `ctl __complete` reads
 * it. A WeakMap keeps hints off commander's objects and costs nothing otherwise.
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';

export type CompletionSource =
  /**
   * Names (ids where entities have none) of that resource, or of several (a policy of any kind). `list`: the value
   * is comma-separated (`--config a,b`); the part after the last comma is completed.
   */
  | { kind: 'resource'; resource: string | readonly string[]; list?: boolean }
  /** Role attributes in use on that resource's entities. */
  | { kind: 'attribute'; resource: string; list?: boolean }
  /** A role: `#all`, `#attribute` or `@name`. */
  | { kind: 'role'; resource: string; list?: boolean }
  | { kind: 'profile' }
  /**
   * Values from a fixed list that commander's `choices` cannot hold, because the value may carry more after a colon
   * (`qualified`: `--os Windows:10.0`) or is a comma-separated list of them (`list`: `--primary password,cert`).
   */
  | { kind: 'values'; values: readonly string[]; list?: boolean; qualified?: boolean }
  /** After `positionals` operands, the words are a command line of `tree` (`ctl as FILE services ...`). */
  | { kind: 'commands'; positionals: number; tree: () => CommandUnknownOpts }
  /** `ctl help`: topics and commands (answered from the tree, not from outside). */
  | { kind: 'help' };

const hints = new WeakMap<object, CompletionSource>();

/** Marks an Argument or Option as completing to `source`; returns it for chaining. */
export function completeWith<T extends object>(target: T, source: CompletionSource): T {
  hints.set(target, source);
  return target;
}

export function hintFor(target: object): CompletionSource | undefined {
  return hints.get(target);
}
