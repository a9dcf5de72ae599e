/** What a batch write answers for one of its items: its value, or the error that item alone fails with. */
export type ItemOutcome<O> = { value: O } | { error: unknown };

/** Options of a {@link WriteBatcher}. */
export interface WriteBatcherOptions<I, O> {
  /** Writes a batch: one outcome per item, in order. Throwing fails every item of the batch with the error. */
  write(items: I[]): Promise<Array<ItemOutcome<O>>>;
  /** Most items in one batch (default 500): a larger burst goes in several, one after the other. */
  maxItems?: number;
  /** Called once the batcher has nothing queued nor under way (its owner may forget it). */
  idle?(): void;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/**
 * Group commit for one kind of write: the writes added while a batch is under way wait and go together
 * in the next one, and the first write of a quiet moment waits one turn of the event loop, so that the
 * writes a burst sets going in one turn (a tick firing thousands of queries) go in one batch. One batch
 * at a time: a write added after another is never written before it. Each write answers as it would
 * alone: its own value or error.
 */
export class WriteBatcher<I, O> {
  private queue: Array<Waiting<I, O>> = [];
  private draining = false;

  constructor(private readonly options: WriteBatcherOptions<I, O>) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    const maxItems = this.options.maxItems ?? 500;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, maxItems);
      let outcomes: Array<ItemOutcome<O>>;
      try {
        outcomes = await this.options.write(batch.map((waiting) => waiting.item));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
        continue;
      }
      batch.forEach((waiting, index) => {
        const outcome = outcomes[index];
        if (outcome === undefined) waiting.reject(new Error('a batch write answered for fewer items than it was given'));
        else if ('error' in outcome) waiting.reject(outcome.error);
        else waiting.resolve(outcome.value);
      });
    }
    this.draining = false;
    this.options.idle?.();
  }
}

/**
 * Batchers by name, each forgotten once idle (a batcher per fence would otherwise outlive its epoch).
 */
export class WriteBatchers {
  private readonly batchers = new Map<string, WriteBatcher<unknown, unknown>>();

  /** The batcher named `name`, made with `options` when there is none. */
  of<I, O>(name: string, options: () => Omit<WriteBatcherOptions<I, O>, 'idle'>): WriteBatcher<I, O> {
    let batcher = this.batchers.get(name) as WriteBatcher<I, O> | undefined;
    if (!batcher) {
      const made: WriteBatcher<I, O> = new WriteBatcher<I, O>({
        ...options(),
        idle: () => {
          if (this.batchers.get(name) === (made as WriteBatcher<unknown, unknown>)) this.batchers.delete(name);
        },
      });
      batcher = made;
      this.batchers.set(name, batcher);
    }
    return batcher;
  }
}
