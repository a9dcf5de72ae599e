import type { QueryRuntime } from './query-runtime.js';

/**
 * Removed queries whose objects later adds take (`QueryRuntime.renew`): a query replaced as it fires (an
 * alert) then costs the collector no new runtime and leaf to copy (docs/performance.md, nineteenth round).
 * The engine hands over only queries nothing of it can reach any more; this keeps those that can be made
 * anew ({@link QueryRuntime.reusable}), at most `max`: enough for adds that follow removes one by one, little
 * held after a mass removal.
 */
export class SpareQueries {
  private readonly queries: QueryRuntime[] = [];

  constructor(private readonly max = 64) {}

  keep(query: QueryRuntime): void {
    if (this.queries.length < this.max && query.reusable) this.queries.push(query);
  }

  /** The latest kept query, no longer kept; undefined when there is none. */
  take(): QueryRuntime | undefined {
    return this.queries.pop();
  }

  clear(): void {
    this.queries.length = 0;
  }
}
