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
  const item = (t: string, w: number) => layOut(t, w, description, helper);
  if (column === termWidth || column < LEAST_TERM_COLUMN || !description) return item(term, termWidth);
  if (helper.displayWidth(term) <= column) return item(term, column);
  return `${' '.repeat(INDENT)}${term}\n${item('', column)}`;
}

/** Words apart by single spaces, no colour, no line break: what most help text is, and what wrapPlain lays out. */
const PLAIN = /^[^\s\x1b]+(?: [^\s\x1b]+)*$/;

/**
 * commander's layout of one item, the same text to the byte (help-layout.test.ts compares them): plain text is
 * wrapped here, without the arrays of chunks commander makes of every line, which made a help of 80 nouns allocate
 * past the young generation's first size, and a collection cost each `ctl --help` 0.8 ms.
 */
function layOut(term: string, termWidth: number, description: string, helper: Help): string {
  const remaining = (helper.helpWidth ?? 80) - termWidth - GAP - INDENT;
  if (!description || remaining < helper.minWidthToWrap || !PLAIN.test(description) || term.includes('\x1b')) {
    return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  }
  const under = `\n${' '.repeat(INDENT + termWidth + GAP)}`;
  return `${' '.repeat(INDENT)}${term.padEnd(termWidth)}${' '.repeat(GAP)}${wrapPlain(description, remaining, under)}`;
}

/** Greedy wrap at `width`, words kept whole (one too long stands alone), lines joined by `joint`. */
function wrapPlain(text: string, width: number, joint: string): string {
  let out = '';
  let line = 0;
  let end = text.indexOf(' ');
  if (end < 0) return text;
  while (end < text.length) {
    const next = text.indexOf(' ', end + 1);
    const wordEnd = next < 0 ? text.length : next;
    if (wordEnd - line > width) {
      out += text.slice(line, end) + joint;
      line = end + 1;
    }
    end = wordEnd;
  }
  return out + text.slice(line);
}
