/**
 * Sets `key` as the latest entry of `map` (a Map keeps its keys in the order they were set), the oldest going while
 * there are more than `most`: what a bounded memory keyed by what clients send keeps, the least recently set first
 * to go.
 */
export function setLatest<K, V>(map: Map<K, V>, key: K, value: V, most: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > most) map.delete(map.keys().next().value as K);
}
