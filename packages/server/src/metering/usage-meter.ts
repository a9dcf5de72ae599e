import type { HostStore } from '../store/store.js';

interface Entry {
  keyId: number;
  day: string;
  /** Counts in the store when loaded (plus what was flushed since). */
  daily: number;
  monthly: number;
  /** Counted here, not yet written. */
  pending: number;
}

/**
 * Request counts of the quotas, kept in memory and written to the store once a second: counting a
 * request costs no database write on the request's path. A crash forgets at most the last second of
 * counting (a metering count, not an acknowledged client write); a clean stop flushes everything.
 */
export class UsageMeter {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: HostStore,
    flushMs = 1_000,
  ) {
    // A flush that fails (the database restarting) keeps its counts for the next one; it must not end the
    // process as an unhandled rejection.
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushMs);
    this.timer.unref();
  }

  /** Counts one request of a key on a day; returns the day's and the month's counts after it. */
  async count(keyId: number, day: string): Promise<{ daily: number; monthly: number }> {
    const entry = await this.entry(keyId, day);
    entry.pending += 1;
    return { daily: entry.daily + entry.pending, monthly: entry.monthly + entry.pending };
  }

  /** Counts one request when the key's counts are loaded already (no waiting); undefined otherwise. */
  countLoaded(keyId: number, day: string): { daily: number; monthly: number } | undefined {
    const entry = this.entries.get(`${keyId}|${day}`);
    if (!entry) return undefined;
    entry.pending += 1;
    return { daily: entry.daily + entry.pending, monthly: entry.monthly + entry.pending };
  }

  /** The counts of a key on a day, without counting. */
  async usage(keyId: number, day: string): Promise<{ daily: number; monthly: number }> {
    const entry = await this.entry(keyId, day);
    return { daily: entry.daily + entry.pending, monthly: entry.monthly + entry.pending };
  }

  /** Writes the pending counts; entries of past days are dropped once written. Counts it could not write stay pending. */
  flush(today?: string): Promise<void> {
    this.flushing ??= (async () => {
      for (const [name, entry] of this.entries) {
        if (entry.pending > 0) {
          const pending = entry.pending;
          entry.pending = 0;
          try {
            await this.store.addRequests(entry.keyId, entry.day, pending);
          } catch (error) {
            entry.pending += pending;
            throw error;
          }
          entry.daily += pending;
          entry.monthly += pending;
        }
        if (today !== undefined && entry.day < today) this.entries.delete(name);
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Writes a key's pending counts and reloads them from the store on next use (after an operator changed them). */
  async forget(keyId: number): Promise<void> {
    await this.flush();
    for (const [name, entry] of this.entries) if (entry.keyId === keyId) this.entries.delete(name);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async entry(keyId: number, day: string): Promise<Entry> {
    const name = `${keyId}|${day}`;
    let entry = this.entries.get(name);
    if (!entry) {
      const stored = await this.store.usage(keyId, day);
      // Another request may have loaded it while we waited.
      entry = this.entries.get(name) ?? { keyId, day, daily: stored.daily, monthly: stored.monthly, pending: 0 };
      this.entries.set(name, entry);
    }
    return entry;
  }
}
