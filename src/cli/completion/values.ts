/**
 * Choosing among candidates, shared by the full CLI (candidates.ts) and the lines the build's files answer
 * (prebuilt/serve.ts), which must print the same: plain data in and out, so that it costs the fast path nothing.
 */

/** A word a TAB may complete to, with what the shells that show one (fish, zsh) print beside it. */
export interface Candidate {
  value: string;
  description?: string;
}

/**
 * How a value is written: a comma-separated list of values (`list`: `--identities '#sales,@lap'`), or a value
 * that may go on after a colon, the part before it being the choice (`qualified`: `--os Windows:10.0`).
 */
export interface ValueForm {
  list?: boolean;
  qualified?: boolean;
}

/** What the line gave an option so far, by its key. */
export type Given = ReadonlyMap<string, readonly string[]>;

/** The values already given to an option that it may gather, to leave out; none for one that keeps the last. */
export function givenValues(given: Given, key: string, repeatable: boolean): readonly string[] {
  return repeatable ? (given.get(key) ?? []) : [];
}

/** Whether a flag is offered: not given yet, or given but gathering every value. */
export function offeredAgain(given: Given, key: string, repeatable: boolean): boolean {
  return repeatable || !given.has(key);
}

/**
 * The values of an option or argument that remain for the word being typed, `current`. `given`: what the line
 * already gives it (earlier words of a repeatable flag or of a variadic argument), left out. A list completes the
 * part after the last comma, keeping what comes before and leaving out what is listed.
 */
export function remainingValues(
  found: readonly string[],
  current: string,
  form: ValueForm,
  given: readonly string[],
): string[] {
  const comma = form.list ? current.lastIndexOf(',') : -1;
  const head = current.slice(0, comma + 1);
  const listed = form.list ? [...given, head].flatMap((v) => v.split(',')) : given;
  const done = new Set(form.qualified ? listed.map((v) => v.split(':')[0]) : listed);
  return found.filter((v) => !done.has(v)).map((v) => head + v);
}

/** The candidates that start with `current`, each once (the first description kept), in order. */
export function matching(found: readonly Candidate[], current: string): Candidate[] {
  const seen = new Set<string>();
  return found.filter((c) => {
    if (!c.value.startsWith(current) || seen.has(c.value)) return false;
    seen.add(c.value);
    return true;
  });
}

/**
 * The argument the next operand goes to, after `operands`: the last one, if variadic, takes every operand from its
 * place on, and those it has already are `given`.
 */
export function nextArgument<T extends { variadic?: boolean }>(
  args: readonly T[],
  operands: readonly string[],
): { target?: T; given: string[] } {
  const last = args[args.length - 1];
  if (last?.variadic && operands.length >= args.length - 1)
    return { target: last, given: operands.slice(args.length - 1) };
  return { target: args[operands.length], given: [] };
}
