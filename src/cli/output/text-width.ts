// The width cli-table3 measures each cell's text by. It calls string-width several times per cell, which strips
// escape sequences with a regular expression made anew on every call and then replaces emoji with another of about
// 10 KB, compiled on first use: a good part of what a ten-row table cost to lay out. Table cells are nearly always
// Latin text, one column per character; only other text needs string-width's answer. The build gives cli-table3
// `withLatinFastPath(string-width)` in place of string-width (scripts/table-text-width.mjs).

/**
 * Printable ASCII, Latin-1 and the Latin extensions up to U+02FF, and the ellipsis (which cli-table3 measures to
 * cut a value): one column each. The range holds no escape, control, combining, wide or emoji character, nor any
 * part of a sequence string-width treats as one (those all need a character outside it, such as U+FE0F).
 */
const ONE_COLUMN_EACH = /^[ -~\u00a0-\u02ff\u2026]*$/;

/** Whether each character of `text` takes one column on a terminal (see ONE_COLUMN_EACH): its width is its length. */
export function isOneColumnEach(text: string): boolean {
  return ONE_COLUMN_EACH.test(text);
}

/** `measure`, answering text of one-column characters by its length without calling it. */
export function withLatinFastPath(measure: (text: string) => number): (text: string) => number {
  return (text) => (typeof text === 'string' && isOneColumnEach(text) ? text.length : measure(text));
}
