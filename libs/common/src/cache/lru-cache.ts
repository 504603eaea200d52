/**
 * A bounded map of recently used values, each kept at most `ttlMs` after it was set (no limit without one): the
 * least recently used entry leaves first when `limit` is reached. For values read on every item or request that
 * change seldom or never (a task's parsed request, a key's principal); the caller decides what may be stale for
 * how long, and forgets an entry itself when it knows of a change.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly limit: number,
    private readonly ttlMs = Infinity,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.now()) return undefined;
    this.entries.set(key, entry); // the most recent again: Map keeps insertion order
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    if (this.limit <= 0) return;
    while (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Forgets every entry whose value matches (e.g. every principal of a revoked key). */
  deleteWhere(matches: (value: V, key: K) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
