/**
 * Turning entity values into table cells. Every value that reaches a terminal passes through `cell()`, because
 * names, tags and attributes come from the controller and may hold control characters (a stray escape sequence
 * must never repaint the user's terminal) or newlines (which would break the table into unreadable rows).
 */

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
// C0 controls, DEL and C1 controls; newlines are handled before this runs (the cell is cut to one line).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Reads a dotted path such as `authPolicy.name`; a missing step gives undefined. */
export function valueAt(entity: unknown, path: string): unknown {
  let current: unknown = entity;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Escapes control characters so that they show as text instead of acting on the terminal. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** Keeps the first line of a multi-line text, marking the cut with an ellipsis, then escapes what is left. */
export function oneLine(text: string): string {
  const lines = text.split(/\r?\n|\r/);
  const first = lines.length > 1 ? `${lines[0]}…` : text;
  return escapeControls(first);
}

/** `2025-11-21T19:01:02.123Z` becomes `2025-11-21 19:01` (UTC): tables have little room; JSON keeps the full value. */
export function shortDate(text: string): string {
  const m = ISO_DATE.exec(text);
  if (!m) return text;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return text;
  return date.toISOString().slice(0, 16).replace('T', ' ');
}

/** Plain text of a value before escaping: arrays joined with `, `, objects as compact JSON, nothing for null. */
export function plain(value: unknown, dates: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return dates ? shortDate(value) : value;
  if (Array.isArray(value)) return value.map((v) => plain(v, dates)).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** One table cell: plain text, cut to one line, control characters escaped. */
export function cell(value: unknown): string {
  return oneLine(plain(value, true));
}

/** Cuts text to at most `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  return `${text.slice(0, width - 1)}…`;
}
