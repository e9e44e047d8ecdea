/**
 * What completion reads of commander's Options and Arguments beyond their flags: their values from a fixed list,
 * and whether giving one twice means anything. The full CLI reads it from the tree on each TAB and the build
 * writes it into the prebuilt records (prebuilt/records.ts), so both paths answer from one rule.
 */
import type { Argument, Option } from '@commander-js/extra-typings';
import { hintFor } from './hints.js';
import type { ValueForm } from './values.js';

/** Values of an option or argument that come from a fixed list: commander's `choices`, or a `values` hint. */
export function fixedValues(target: Option | Argument): readonly string[] | undefined {
  if (target.argChoices) return target.argChoices;
  const hint = hintFor(target);
  return hint?.kind === 'values' ? hint.values : undefined;
}

/** How the value is written (values.ts), with only what holds set. */
export function valueForm(target: object): ValueForm {
  const hint = hintFor(target);
  return {
    ...(hint && 'list' in hint && hint.list ? { list: true } : {}),
    ...(hint?.kind === 'values' && hint.qualified ? { qualified: true } : {}),
  };
}

const keepingLast = new WeakSet<object>();

/**
 * Marks a parser that reads its own word alone, ignoring the value before: commander then keeps the last value
 * given, as it does without a parser. Returns the parser.
 */
export function keepsLast<T extends (value: string) => unknown>(parser: T): T {
  keepingLast.add(parser);
  return parser;
}

/**
 * Whether an option may be given more than once to any effect. commander keeps the last value of an option that
 * has no parser of its own, a switch, a choice among values, or one whose parser is marked `keepsLast`; any other
 * parser may gather every value (`--tag`, `--os`), so such an option counts as repeatable: a TAB never hides a flag
 * that may be given again.
 */
export function repeatable(option: Option): boolean {
  if (option.variadic) return true;
  if (option.argChoices || option.parseArg === undefined) return false;
  return !keepingLast.has(option.parseArg);
}
