/**
 * A description as a shell shows it beside a candidate: its first clause, on one line. Help says more (`ctl help
 * identity create`); beside a candidate, a line that runs past the terminal is cut off or wrapped into the list.
 * A colon or semicolon inside parentheses (`(none: any version)`) ends no clause.
 */
export function shortDescription(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let depth = 0;
  for (let i = 0; i < flat.length - 1; i++) {
    const c = flat[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && flat[i + 1] === ' ' && (c === ':' || c === ';' || sentenceEnds(flat, i))) {
      return flat.slice(0, i);
    }
  }
  return flat;
}

/** A full stop before a capital letter ends a sentence; `e.g. 10s` goes on. */
const sentenceEnds = (text: string, at: number) => text[at] === '.' && /[A-Z]/.test(text[at + 2] ?? '');
