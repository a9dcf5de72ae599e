/** The count of one key in its current fixed window. */
export interface WindowCount {
  /** Hits counted in the window (0 when no window is open). */
  count: number;
  /** Milliseconds until the window ends (0 when no window is open). */
  ttlMs: number;
}

/**
 * Fixed-window counters by key, as `@fastify/rate-limit` counts: the first hit of a key opens a window
 * of `windowMs`, later hits in it add up, and the count starts again with the first hit after it ended.
 * `PaymentRateLimiter` counts in one; the default is in memory ({@link MemoryWindowCounter}), which
 * bounds each process on its own; a counter in a database shared by several processes (the host's
 * PostgreSQL one, say) bounds them together. Each method may answer at once or with a promise.
 */
export interface WindowCounter {
  /** Counts one hit of `key` and returns its window with that hit counted; opens a window of `windowMs` when none is open. */
  hit(key: string, windowMs: number): WindowCount | Promise<WindowCount>;
  /** Takes one hit back from the open window of `key` (never below 0); does nothing when none is open. */
  unhit(key: string): void | Promise<void>;
  /** The open window of `key` without counting anything; `{count: 0, ttlMs: 0}` when none is open. */
  peek(key: string): WindowCount | Promise<WindowCount>;
}

/** Options of {@link MemoryWindowCounter}. */
export interface MemoryWindowCounterOptions {
  /**
   * Most keys followed at once per namespace (the part of a key before its first `:`; keys without
   * one share a namespace); past it, ended windows are dropped, else the oldest. Default 10000.
   */
  maxKeys?: number;
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
}

interface Window {
  count: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

const CLOSED: WindowCount = { count: 0, ttlMs: 0 };

/**
 * A {@link WindowCounter} in this process's memory, bounded in keys: each namespace (`payer:`,
 * `address:`, ...) keeps at most `maxKeys` windows, so that a flood of new keys of one kind cannot
 * evict the windows of another.
 */
export class MemoryWindowCounter implements WindowCounter {
  private readonly namespaces = new Map<string, Map<string, Window>>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: MemoryWindowCounterOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys <= 0) throw new RangeError(`maxKeys must be a positive whole number, not ${maxKeys}`);
    this.maxKeys = maxKeys;
    this.now = options.now ?? (() => Date.now());
  }

  hit(key: string, windowMs: number): WindowCount {
    const now = this.now();
    const windows = this.windowsOf(key);
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      if (window) windows.delete(key);
      if (windows.size >= this.maxKeys) this.evict(windows, now);
      window = { count: 0, resetAt: now + windowMs };
      windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, ttlMs: window.resetAt - now };
  }

  unhit(key: string): void {
    const window = this.open(key, this.now());
    if (window) window.count = Math.max(0, window.count - 1);
  }

  peek(key: string): WindowCount {
    const now = this.now();
    const window = this.open(key, now);
    return window ? { count: window.count, ttlMs: window.resetAt - now } : CLOSED;
  }

  private open(key: string, now: number): Window | undefined {
    const window = this.namespaces.get(namespaceOf(key))?.get(key);
    return window && window.resetAt > now ? window : undefined;
  }

  private windowsOf(key: string): Map<string, Window> {
    const namespace = namespaceOf(key);
    let windows = this.namespaces.get(namespace);
    if (!windows) {
      windows = new Map();
      this.namespaces.set(namespace, windows);
    }
    return windows;
  }

  /** Drops ended windows; when none has ended, the oldest one (maps keep insertion order). */
  private evict(windows: Map<string, Window>, now: number): void {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    if (windows.size >= this.maxKeys) {
      const oldest = windows.keys().next();
      if (!oldest.done) windows.delete(oldest.value);
    }
  }
}

function namespaceOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? '' : key.slice(0, colon);
}
