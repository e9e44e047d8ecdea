import { escapeControls, plain } from './cells.js';
import type { Paint } from './paint.js';

/** Links are for programs; the human view of an entity leaves them out (json and yaml keep them). */
const HIDDEN = new Set(['_links']);
const INDENT = '  ';

type Entity = Record<string, unknown>;

function isEntity(value: unknown): value is Entity {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `first` keys in their order, then the others alphabetically. */
function orderedKeys(entity: Entity, first: readonly string[]): string[] {
  const keys = Object.keys(entity).filter((k) => !HIDDEN.has(k));
  const leading = first.filter((k) => keys.includes(k));
  const rest = keys.filter((k) => !leading.includes(k)).sort();
  return [...leading, ...rest];
}

/**
 * Key/value lines of an entity for `show`: scalars beside their key (aligned per level), nested objects indented
 * under theirs, lists of objects as `-` items. Every value is escaped; multi-line text continues on indented lines.
 */
export function describe(entity: Entity, paint: Paint, first: readonly string[] = [], depth = 0): string[] {
  const pad = INDENT.repeat(depth);
  const keys = orderedKeys(entity, first);
  const width = Math.max(0, ...keys.map((k) => escapeControls(k).length + 1));
  const lines: string[] = [];
  for (const key of keys) {
    const value = entity[key];
    const name = `${escapeControls(key)}:`;
    if (isEntity(value) && Object.keys(value).length > 0) {
      lines.push(`${pad}${paint.bold(name)}`, ...describe(value, paint, [], depth + 1));
    } else if (Array.isArray(value) && value.some(isEntity)) {
      lines.push(`${pad}${paint.bold(name)}`);
      for (const item of value) lines.push(...listItem(item, paint, depth + 1));
    } else {
      // An empty object (no tags) shows as nothing, like an empty list.
      const [head, ...more] = (isEntity(value) ? '' : plain(value, false)).split(/\r?\n|\r/);
      lines.push(`${pad}${paint.bold(name)}${' '.repeat(width - name.length)} ${escapeControls(head)}`.trimEnd());
      for (const line of more) lines.push(`${pad}${' '.repeat(width + 1)}${escapeControls(line)}`.trimEnd());
    }
  }
  return lines;
}

function listItem(item: unknown, paint: Paint, depth: number): string[] {
  const pad = INDENT.repeat(depth);
  if (!isEntity(item)) return [`${pad}- ${escapeControls(plain(item, false))}`];
  const inner = describe(item, paint, [], depth + 1);
  // The first line of the item carries the dash in place of its indentation.
  return inner.map((line, i) => (i === 0 ? `${pad}- ${line.slice(pad.length + INDENT.length)}` : line));
}
