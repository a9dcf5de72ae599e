/** How many bytes the validation memo of a host holds at most (about 9,700 entries). */
export const VALIDATION_MEMO_MAX_BYTES = 2 * 1024 * 1024;

/** What an entry costs beyond its name's characters (two bytes each, at worst): the map's slot, the time, the string's header. */
const ENTRY_OVERHEAD_BYTES = 80;

/** The bytes one entry is counted as. */
export function memoEntryBytes(name: string): number {
  return ENTRY_OVERHEAD_BYTES + 2 * name.length;
}

/** Options of {@link ValidationMemo}. */
export interface ValidationMemoOptions {
  /** How long a remembered name stays fresh, in milliseconds. */
  windowMs: number;
  /** The most bytes the memo holds (default {@link VALIDATION_MEMO_MAX_BYTES}). */
  maxBytes?: number;
}

/**
 * Names remembered with the time they were last remembered, each fresh for a window: what the validate
 * route keeps so that a request validated again and again is written to the store once a window. The
 * memo is bounded in bytes, whatever the names: past `maxBytes` the names remembered longest ago are
 * forgotten first, as are those whose window is over. Forgetting a name costs one more write of the
 * store, never a wrong answer. Callers name entries by a digest, so an entry's size does not depend on
 * what a client sends.
 */
export class ValidationMemo {
  /** Names by the time they were last remembered, oldest first (a name remembered again moves to the end). */
  private readonly entries = new Map<string, number>();
  private used = 0;
  private readonly windowMs: number;
  private readonly maxBytes: number;

  constructor(options: ValidationMemoOptions) {
    this.windowMs = options.windowMs;
    this.maxBytes = options.maxBytes ?? VALIDATION_MEMO_MAX_BYTES;
  }

  /** Whether `name` was remembered less than a window before `now`. */
  isFresh(name: string, now: number): boolean {
    const at = this.entries.get(name);
    return at !== undefined && at > now - this.windowMs;
  }

  /** Remembers `name` at `now`, then forgets the names whose window is over and, past the bound, the oldest. */
  remember(name: string, now: number): void {
    if (this.entries.delete(name)) this.used -= memoEntryBytes(name);
    this.entries.set(name, now);
    this.used += memoEntryBytes(name);
    for (const [oldest, at] of this.entries) {
      if (this.used <= this.maxBytes && at > now - this.windowMs) break;
      this.entries.delete(oldest);
      this.used -= memoEntryBytes(oldest);
    }
  }

  /** The bytes the remembered names are counted as (at most the bound). */
  get bytes(): number {
    return this.used;
  }

  /** How many names are remembered. */
  get size(): number {
    return this.entries.size;
  }
}
