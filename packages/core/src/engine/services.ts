import type { Subscription } from 'rxjs';
import type { ConditionNode } from './condition-tree.js';
import type { LlmProvider, SemanticMatcher } from './interfaces.js';
import type { Topic } from './observations.js';
import type { ItemWatcher } from './channels/item-channel.js';
import type { SeriesDescription, SeriesValue } from './series-value.js';

/** What leaves need from the engine: time, timers, shared channels, the matcher and the LLM. */
export interface LeafServices {
  now(): number;
  /** Runs `work` after `delayMs` as a batch of its own (see Engine.batch). */
  schedule(delayMs: number, work: () => void): Subscription;
  /** The shared series for a price or indicator description on a price topic (created on first use). */
  acquireSeries(topic: Topic, description: SeriesDescription): SeriesValue;
  releaseSeries(topic: Topic, series: SeriesValue): void;
  /** Registers a tweet or news condition on its shared topic. */
  watchItems(topic: Topic, leaf: ItemWatcher): void;
  unwatchItems(topic: Topic, leaf: ItemWatcher): void;
  /** Time of the last observation on a topic. */
  topicLastAt(topic: Topic): number | undefined;
  /** Why no observation of a topic can come (no data source serves it), or undefined. */
  topicUnavailable(topic: Topic): string | undefined;
  readonly matcher: SemanticMatcher;
  readonly llm: LlmProvider | undefined;
  /** A leaf changed what must survive a restart (a latch, a verdict, a cron tick). */
  persist(queryId: string): void;
  /** A leaf could not do its work (an LLM call failed, a source is missing). */
  report(queryId: string, code: string, message: string): void;
  /**
   * Pulses `node` (a crossing, a cron tick) at the end of the current batch, after level changes,
   * together with the other pulses of the instant (see ConditionNode.pulseOn).
   */
  deferPulse(node: ConditionNode): void;
  /** Settles a held node at the end of the current batch (see ConditionNode.settle). */
  settleLater(node: ConditionNode): void;
}
