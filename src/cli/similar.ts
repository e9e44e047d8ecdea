/**
 * "Did you mean": the words nearest to a mistyped one, by edit distance where swapping two neighbouring letters
 * counts as one edit (`identiy`, `lsit`). A word that differs in more than 40% of its letters is another word,
 * not a typo, and gets no suggestion.
 */
export function similarWords(word: string, candidates: readonly string[]): string[] {
  let best = Infinity;
  let nearest: string[] = [];
  for (const candidate of new Set(candidates)) {
    const distance = editDistance(word, candidate);
    const allowed = Math.max(1, Math.floor(Math.max(word.length, candidate.length) * 0.4));
    if (distance === 0 || distance > allowed) continue;
    if (distance < best) [best, nearest] = [distance, [candidate]];
    else if (distance === best) nearest.push(candidate);
  }
  return nearest;
}

/** "did you mean 'x'?" as a detail line for a mistyped `word` among `known`; none when it is no typo of any. */
export function didYouMean(word: string, known: readonly string[]): string[] {
  const nearest = similarWords(word, known).map((w) => `'${w}'`);
  return nearest.length > 0 ? [`did you mean ${nearest.join(' or ')}?`] : [];
}

/** The detail lines under an unknown word: the known word it is a typo of, if any, then every known one. */
export function unknownWordDetails(word: string, what: string, known: readonly string[]): string[] {
  return [...didYouMean(word, known), `${what}: ${known.join(', ')}`];
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
