import type { ConditionGroup } from '../condition-tree.js';
import type { ConditionState, RuntimeState } from '../interfaces.js';
import type { NewsObservation, Topic, TweetObservation } from '../observations.js';
import type { ItemWatcher } from '../channels/item-channel.js';
import { compare, type Comparison, Leaf, type LeafHost } from './leaf.js';

type Latch = RuntimeState['latched'][string];

/**
 * A tweet or news condition: a latched semantic match. Each new item on the topic (the account's
 * posts, or all news) is scored by the matcher (0 to 100); the first item whose score passes the test
 * (`>= minConfidence`, or the condition's own operator and value) latches the condition: it holds
 * from then on. Under a repeat policy a trigger clears the latch, so the next trigger needs a new item.
 */
export class SemanticLeaf extends Leaf implements ItemWatcher {
  private latch: Latch | undefined;
  /** The score of the last item offered (matched or not), so states can say why it does not hold. */
  private lastScore: { confidence: number; at: number } | undefined;

  constructor(
    host: LeafHost,
    path: string,
    holdForMs: number | undefined,
    parent: ConditionGroup | undefined,
    readonly topic: Topic,
    readonly text: string,
    readonly operator: Comparison,
    readonly threshold: number,
    restored: Latch | undefined,
  ) {
    super(host, path, holdForMs, parent);
    this.latch = restored;
  }

  get latched(): Latch | undefined {
    return this.latch;
  }

  attach(): void {
    if (this.latch) this.setRaw(true);
    this.services.watchItems(this.topic, this);
  }

  detach(): void {
    this.services.unwatchItems(this.topic, this);
  }

  /** A new post or news item on the topic. */
  offer(item: TweetObservation | NewsObservation): void {
    if (this.latch) return;
    const confidence = this.services.matcher.match(this.text, item.text);
    this.lastScore = { confidence, at: item.at };
    if (!compare(confidence, this.operator, this.threshold)) return;
    const id = item.source === 'tweet' ? item.tweetId : (item.id ?? item.url);
    this.latch = id === undefined ? { at: item.at, confidence, text: item.text } : { at: item.at, confidence, text: item.text, id };
    this.services.persist(this.queryId);
    this.setRaw(true);
  }

  override rearm(): void {
    if (!this.latch) return;
    this.latch = undefined;
    this.setRaw(false);
  }

  override inputAt(): number | undefined {
    return this.services.topicLastAt(this.topic);
  }

  state(): ConditionState {
    const state: ConditionState = { path: this.path, source: this.topic.source, holds: this.effective };
    if (this.latch) {
      state.value = this.latch.confidence;
      state.match = { text: this.latch.text, confidence: this.latch.confidence, at: this.latch.at };
      if (this.latch.id !== undefined) state.match.id = this.latch.id;
    }
    state.threshold = this.threshold;
    if (!this.latch && this.lastScore) state.lastScore = { ...this.lastScore };
    if (this.since !== undefined) state.since = this.since;
    const unavailable = this.services.topicUnavailable(this.topic);
    if (unavailable === undefined) state.status = 'ready';
    else Object.assign(state, { status: 'no_data', reason: unavailable });
    const observedAt = this.inputAt();
    if (observedAt !== undefined) state.observedAt = observedAt;
    return state;
  }
}
