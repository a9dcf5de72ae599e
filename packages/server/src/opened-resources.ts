/**
 * What a start has opened so far (the store's pool, timers, the bus, the HTTP server), to close when it
 * fails before the host is handed over: a process whose start failed must end, not hang on what it
 * left open. Closed last opened first; a close that fails does not keep the others from closing (the
 * start's own error is the one to tell).
 */
export class OpenedResources {
  private readonly closers: Array<() => unknown> = [];

  /** Notes how to close something just opened. */
  add(close: () => unknown): void {
    this.closers.push(close);
  }

  /** Closes everything noted, last opened first, and forgets it. */
  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // Already failing: what this close would say matters less than closing the rest.
      }
    }
  }
}
