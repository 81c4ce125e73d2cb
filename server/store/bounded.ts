/**
 * Keeps `value` under `key` unless the key is already kept; once `max` entries are kept, the
 * oldest goes first. For what a process remembers of records that exist (token references,
 * approval links): never more than `max`, whatever callers ask.
 */
export function keepBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  if (map.has(key)) return;
  if (map.size >= max) map.delete(map.keys().next().value!);
  map.set(key, value);
}
