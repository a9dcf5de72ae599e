/** One of a key's concurrent streams, held from {@link StreamSlots.reserve} until the stream closes (or `release`). */
export interface StreamSlot {
  /** Gives the slot back; calling it again does nothing. */
  release(): void;
}

/**
 * Where the SSE hub counts the streams each key has open, to hold them to a cap: in this process
 * ({@link MemoryStreamSlots}, one host on SQLite) or shared by the hosts of one PostgreSQL database
 * (`PgStreamSlots`, sse/pg-stream-slots.ts).
 */
export interface StreamSlots {
  /** Takes one of the key's `max` slots; undefined when it holds them all already. */
  reserve(keyId: number, max: number): Promise<StreamSlot | undefined>;
  /** How many slots the key holds on this host (its streams open or opening here). */
  heldHere(keyId: number): number;
  /** Gives back what this host holds and stops (the host is shutting down). */
  close(): Promise<void>;
}

/** The slots of this process's keys, counted in memory: the cap holds per process. */
export class MemoryStreamSlots implements StreamSlots {
  private readonly held = new Map<number, number>();

  reserve(keyId: number, max: number): Promise<StreamSlot | undefined> {
    const held = this.heldHere(keyId);
    if (held >= max) return Promise.resolve(undefined);
    this.held.set(keyId, held + 1);
    let released = false;
    return Promise.resolve({
      release: () => {
        if (released) return;
        released = true;
        const left = this.heldHere(keyId) - 1;
        if (left > 0) this.held.set(keyId, left);
        else this.held.delete(keyId);
      },
    });
  }

  heldHere(keyId: number): number {
    return this.held.get(keyId) ?? 0;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
