import { LruCache } from './driver.js';
import type { Fragment } from './fragment.js';

/** A value made for one list of statement texts, and those texts. */
interface Made<V> {
  texts: readonly string[];
  value: V;
}

/**
 * What a driver makes of statements read together (`Driver.allTogether`: one statement of them all), made at their
 * first read and found again by their texts. Found by the first text, then compared text by text: a repository makes
 * each text once, so V8 keeps its hash with it, where a key joining them all was a new string of a kilobyte or more
 * to build and hash at every read. Bounded as the statement caches are, by count and by the weight of what is kept.
 */
export class CombinedStatements<V> {
  private readonly byFirstText: LruCache<string, Made<V>[]>;

  constructor(capacity: number, maxWeight: number, weigh: (value: V) => number) {
    const weighAll = (_: string, all: Made<V>[]) => all.reduce((n, made) => n + weigh(made.value), 0);
    this.byFirstText = new LruCache(capacity, undefined, { maxWeight, weigh: weighAll });
  }

  /** What `make` made of these statements, made now if they were never read together (or it was forgotten). */
  get(statements: readonly Fragment[], make: () => V): V {
    const first = statements[0].sql;
    const known = this.byFirstText.get(first) ?? [];
    for (const made of known) if (sameTexts(made.texts, statements)) return made.value;
    const value = make();
    this.byFirstText.set(first, [...known, { texts: statements.map((s) => s.sql), value }]);
    return value;
  }
}

function sameTexts(texts: readonly string[], statements: readonly Fragment[]): boolean {
  if (texts.length !== statements.length) return false;
  for (let i = 0; i < texts.length; i++) if (texts[i] !== statements[i].sql) return false;
  return true;
}
