import { Help } from '@commander-js/extra-typings';

const INDENT = 2;
const GAP = 2;
/** Narrower than this, a terms' column is not worth keeping: commander's own layout stands. */
const LEAST_TERM_COLUMN = 12;

/**
 * One item of a help list (a command, an option, an argument), as commander lays it out but for wide terms.
 * commander pads every term to the widest one and leaves the descriptions unwrapped when fewer than 40 columns
 * remain beside them: the root help's terms take 55 columns, so at 80 its lines ran to 150. Here the terms' column
 * is narrowed until 40 remain; a term wider than that stands on a line of its own, its description below it.
 * The full CLI and the prebuilt help (prebuilt/serve.ts) both lay items out through this.
 */
export function formatItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const column = Math.min(termWidth, width - INDENT - GAP - helper.minWidthToWrap);
  const commanders = (t: string, w: number) => Help.prototype.formatItem.call(helper, t, w, description, helper);
  if (column === termWidth || column < LEAST_TERM_COLUMN || !description) return commanders(term, termWidth);
  if (helper.displayWidth(term) <= column) return commanders(term, column);
  return `${' '.repeat(INDENT)}${term}\n${commanders('', column)}`;
}
