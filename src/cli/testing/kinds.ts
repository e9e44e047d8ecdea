import assert from 'node:assert/strict';
import { kindNamed } from '../ascode/kinds.js';
import type { Kind } from '../ascode/kinds.js';

/** A network file's kind by a word the command line takes for it, for tests: one that does not exist fails. */
export function fileKind(word: string): Kind {
  const k = kindNamed(word);
  assert.ok(k, word);
  return k;
}
