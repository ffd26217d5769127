/**
 * Locks this replica already knows about (key → local time it ends), so a
 * flood against a locked account or address is answered 429 without a
 * database round trip. Only ever shortens the path to an answer the
 * database would give: a lock ends by time alone. Bounded: at most `max`
 * entries, expired ones dropped first, then the oldest.
 */
export class LockCache {
  private readonly until = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Remember that `key` is locked for `ms` more (from `now`). */
  lock(key: string, ms: number, now: number): void {
    if (ms <= 0) return;
    this.until.delete(key);
    if (this.until.size >= this.max) this.evict(now);
    this.until.set(key, now + ms);
  }

  /** Remaining lock of `key` at `now` (0 = unknown or over). */
  remaining(key: string, now: number): number {
    const end = this.until.get(key);
    if (end === undefined) return 0;
    if (end <= now) {
      this.until.delete(key);
      return 0;
    }
    return end - now;
  }

  get size(): number {
    return this.until.size;
  }

  private evict(now: number): void {
    for (const [k, end] of this.until) if (end <= now) this.until.delete(k);
    // Still full: drop the oldest entries (Map keeps insertion order).
    for (const k of this.until.keys()) {
      if (this.until.size < this.max) break;
      this.until.delete(k);
    }
  }
}
