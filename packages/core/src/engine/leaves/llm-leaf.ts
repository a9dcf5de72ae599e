import { from, type Subscription, take } from 'rxjs';
import type { LlmSpeed } from '../../generated/eql-types.js';
import type { ConditionGroup } from '../condition-tree.js';
import type { ConditionState, RuntimeState } from '../interfaces.js';
import { compare, type Comparison, Leaf, type LeafHost } from './leaf.js';

type Verdict = RuntimeState['verdicts'][string];

/**
 * An llm condition: the predicate is judged through the LlmProvider at creation and then every
 * `period`; between judgements the last verdict stands. It holds while the last verdict's confidence
 * passes the test (`>= minConfidence`, or the condition's operator and value). After a restart the
 * next judgement is due one period after the last one, so no call is paid twice.
 */
export class LlmLeaf extends Leaf {
  private verdict: Verdict | undefined;
  private timer: Subscription | undefined;
  private call: Subscription | undefined;

  constructor(
    host: LeafHost,
    path: string,
    holdForMs: number | undefined,
    parent: ConditionGroup | undefined,
    readonly query: string,
    readonly periodMs: number,
    readonly speed: LlmSpeed,
    readonly operator: Comparison,
    readonly threshold: number,
    restored: Verdict | undefined,
  ) {
    super(host, path, holdForMs, parent);
    this.verdict = restored;
  }

  get lastVerdict(): Verdict | undefined {
    return this.verdict;
  }

  attach(): void {
    if (this.verdict) this.setRaw(compare(this.verdict.confidence, this.operator, this.threshold));
    const due = this.verdict ? this.verdict.at + this.periodMs : this.services.now();
    this.scheduleAt(due);
  }

  detach(): void {
    this.timer?.unsubscribe();
    this.call?.unsubscribe();
    this.timer = undefined;
    this.call = undefined;
  }

  override inputAt(): number | undefined {
    return this.verdict?.at;
  }

  state(): ConditionState {
    const state: ConditionState = { path: this.path, source: 'llm', method: 'athena_condition', holds: this.effective, threshold: this.threshold };
    if (this.verdict) state.value = this.verdict.confidence;
    if (this.since !== undefined) state.since = this.since;
    if (this.verdict) Object.assign(state, { status: 'ready', observedAt: this.verdict.at });
    else if (!this.services.llm) Object.assign(state, { status: 'no_data', reason: 'no LLM provider is configured to judge llm conditions' });
    else Object.assign(state, { status: 'warming_up', reason: 'waiting for the first verdict' });
    return state;
  }

  private scheduleAt(due: number): void {
    this.timer?.unsubscribe();
    this.timer = this.services.schedule(Math.max(0, due - this.services.now()), () => this.judge());
  }

  private judge(): void {
    const at = this.services.now();
    this.scheduleAt(at + this.periodMs);
    const llm = this.services.llm;
    if (!llm) {
      this.services.report(this.queryId, 'LLM_NOT_CONFIGURED', 'no LLM provider is configured to judge llm conditions');
      return;
    }
    this.call?.unsubscribe();
    this.call = from(llm.judge({ query: this.query, speed: this.speed, at, periodMs: this.periodMs }))
      .pipe(take(1))
      .subscribe({
        next: (judgement) => {
          const confidence = Math.max(0, Math.min(100, judgement.confidence));
          this.verdict = { at, confidence };
          this.services.persist(this.queryId);
          this.setRaw(compare(confidence, this.operator, this.threshold));
        },
        error: (error: unknown) => {
          this.services.report(this.queryId, 'LLM_CONDITION_UPSTREAM_ERROR', error instanceof Error ? error.message : String(error));
        },
      });
  }
}
