import type { RuntimeState, StateStore } from './interfaces.js';
import { consumeAnswer, isPendingAnswer } from './maybe.js';

/** A query as the store keeps it: its id and what must survive a restart. */
export interface SavedQuery {
  readonly id: string;
  runtimeState(): RuntimeState;
}

/** Nothing to do once a store's answer settles. */
const ignore = (): void => undefined;

/**
 * The engine's writes of query runtime state to its store. A store may answer at once (the memory store),
 * later (a promise or an observable), or throw: a call that throws or fails becomes a problem of its query,
 * reported through `problem`, and never stops the engine.
 */
export class RuntimeSaves {
  constructor(
    private readonly store: StateStore,
    private readonly problem: (queryId: string, error: unknown) => void,
  ) {}

  /** Saves the query's runtime state; nothing waits for the store. */
  save(query: SavedQuery): void {
    const answer = this.write(query);
    // A failed write (FAILED) is not pending: it was reported already.
    if (isPendingAnswer(answer)) this.after(query.id, answer, ignore);
  }

  /**
   * Saves the query's runtime state, then runs `then`: at once when the store answered at once (no
   * continuation is built), once the answer settles when it is pending, never when the store failed.
   */
  saveThen(query: SavedQuery, then: () => void): void {
    const answer = this.write(query);
    if (answer === FAILED) return;
    if (isPendingAnswer(answer)) this.after(query.id, answer, then);
    else then();
  }

  /** Lets the store drop a query's records (`StateStore.forgetQuery`, when the store has it). */
  forget(queryId: string): void {
    const store = this.store;
    if (!store.forgetQuery) return;
    let answer: unknown;
    try {
      answer = store.forgetQuery(queryId);
    } catch (error) {
      this.problem(queryId, error);
      return;
    }
    if (isPendingAnswer(answer)) this.after(queryId, answer, ignore);
  }

  /** What the store answered, or FAILED when it threw (reported). */
  private write(query: SavedQuery): unknown {
    try {
      return this.store.saveRuntime(query.id, query.runtimeState());
    } catch (error) {
      this.problem(query.id, error);
      return FAILED;
    }
  }

  /** Goes on with `then` once a pending answer settles; a failure becomes a problem of the query. */
  private after(queryId: string, answer: unknown, then: () => void): void {
    consumeAnswer(answer, then, (error: unknown) => this.problem(queryId, error));
  }
}

/** A store call threw (already reported). */
const FAILED = Symbol('store call failed');
