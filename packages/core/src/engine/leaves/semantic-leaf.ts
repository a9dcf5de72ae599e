import type { ConditionNode } from '../condition-tree.js';
import type { ConditionState, RuntimeState } from '../interfaces.js';
import type { NewsObservation, Topic, TweetObservation } from '../observations.js';
import type { ItemWatcher } from '../channels/item-channel.js';
import type { LeafServices } from '../services.js';
import { compare, type Comparison, type Leaf } from './leaf.js';

type Latch = RuntimeState['latched'][string];

/**
 * A tweet or news condition: a latched semantic match. Each new item on the topic (the account's
 * posts, or all news) is scored by the matcher (0 to 100); the first item whose score passes the test
 * (`>= minConfidence`, or the condition's own operator and value) latches the condition: it holds
 * from then on. Under a repeat policy a trigger clears the latch, so the next trigger needs a new item.
 */
export class SemanticLeaf implements Leaf, ItemWatcher {
  private latch: Latch | undefined;
  /** The score of the last item offered (matched or not), so states can say why it does not hold. */
  private lastScore: { confidence: number; at: number } | undefined;

  constructor(
    readonly node: ConditionNode,
    readonly queryId: string,
    private readonly services: LeafServices,
    readonly topic: Topic,
    readonly text: string,
    readonly operator: Comparison,
    readonly threshold: number,
    restored: Latch | undefined,
  ) {
    this.latch = restored;
  }

  get latched(): Latch | undefined {
    return this.latch;
  }

  attach(): void {
    if (this.latch) this.node.setRaw(true);
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
    this.node.setRaw(true);
  }

  rearm(): void {
    if (!this.latch) return;
    this.latch = undefined;
    this.node.setRaw(false);
  }

  inputAt(): number | undefined {
    return this.services.topicLastAt(this.topic);
  }

  state(): ConditionState {
    const state: ConditionState = { path: this.node.path, source: this.topic.source, holds: this.node.effective };
    if (this.latch) {
      state.value = this.latch.confidence;
      state.match = { text: this.latch.text, confidence: this.latch.confidence, at: this.latch.at };
      if (this.latch.id !== undefined) state.match.id = this.latch.id;
    }
    state.threshold = this.threshold;
    if (!this.latch && this.lastScore) state.lastScore = { ...this.lastScore };
    if (this.node.since !== undefined) state.since = this.node.since;
    const unavailable = this.services.topicUnavailable(this.topic);
    if (unavailable === undefined) state.status = 'ready';
    else Object.assign(state, { status: 'no_data', reason: unavailable });
    const observedAt = this.inputAt();
    if (observedAt !== undefined) state.observedAt = observedAt;
    return state;
  }
}
