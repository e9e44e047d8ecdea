// The width cli-table3 measures each cell's text by. It calls string-width several times per cell, which strips
// escape sequences with a regular expression made anew on every call and then replaces emoji with another of about
// 10 KB, compiled on first use: most of what a ten-row table cost to lay out. Table cells are nearly always printable
// ASCII, whose width is their length; only other text needs string-width's answer. The build gives cli-table3
// `withAsciiFastPath(string-width)` in place of string-width (scripts/table-text-width.mjs).

/** Printable ASCII only: no escape sequence, control character, wide, combining or emoji character. */
const PRINTABLE_ASCII = /^[ -~]*$/;

/** `measure`, answering printable ASCII text by its length without calling it. */
export function withAsciiFastPath(measure: (text: string) => number): (text: string) => number {
  return (text) => (typeof text === 'string' && PRINTABLE_ASCII.test(text) ? text.length : measure(text));
}
