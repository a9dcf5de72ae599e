import type { PriceHistory, PriceTick, PriceTopic } from './history.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation } from './observations.js';
import { type Candle, candlesFromTicks, firstBucketStartFrom } from './series/candles.js';

/** How a {@link RecordingHistory} maps recorded times, matching the ReplaySource that plays the same recording. */
export interface RecordingHistoryOptions {
  /** The same shift, loop and speed as the ReplaySource that plays the recording (see ReplayOptions). */
  shiftMs?: number;
  loop?: boolean;
  speed?: number;
  /**
   * With `loop`: how many laps of the recording lie before its first replayed lap, as history
   * (default 3). Without loop the history starts at the recording's first observation.
   */
  lapsBefore?: number;
}

interface RecordedTick {
  at: number;
  price: number;
  volume: number;
}

/**
 * The past of a recording as a replay plays it: at replay time `t`, every price observation the
 * replay put before `t` is history. It maps times exactly as ReplaySource does (shift, speed, laps), so
 * a series warmed from it at `t` is the series a replay that had run since the start would hold at `t`.
 *
 * The origin of smoothing is the first replayed instant of the history: the recording's first
 * observation (shifted), or with `loop` the start of the first of the `lapsBefore` laps before it.
 */
export class RecordingHistory implements PriceHistory {
  readonly name = 'recording';
  private readonly byKey = new Map<string, RecordedTick[]>();
  private readonly first: number;
  private readonly span: number;
  private readonly shiftMs: number;
  private readonly speed: number;
  private readonly firstLap: number;
  private readonly loop: boolean;

  constructor(observations: readonly Observation[], options: RecordingHistoryOptions = {}) {
    const played = observations.filter((observation) => observation.source !== 'llm');
    this.first = played[0]?.at ?? 0;
    const last = played[played.length - 1]?.at ?? this.first;
    this.span = last - this.first + 60_000;
    this.shiftMs = options.shiftMs ?? 0;
    this.speed = options.speed ?? 1;
    this.firstLap = options.loop ? -(options.lapsBefore ?? 3) : 0;
    this.loop = options.loop ?? false;
    for (const observation of played) {
      if (observation.source !== 'price') continue;
      const key = feedKeyOfObservation(observation) as string;
      let ticks = this.byKey.get(key);
      if (!ticks) this.byKey.set(key, (ticks = []));
      ticks.push({ at: observation.at, price: observation.price, volume: observation.volume ?? 0 });
    }
  }

  supports(topic: PriceTopic): boolean {
    return this.byKey.has(feedKeyOfTopic(topic));
  }

  /** The first replayed instant of the history: the origin of every topic it has prices of. */
  get since(): number {
    return this.timeOf(this.first, this.firstLap);
  }

  origin(topic: PriceTopic): number | undefined {
    return this.supports(topic) ? this.since : undefined;
  }

  ticks(topic: PriceTopic, from: number, to: number): PriceTick[] {
    const recorded = this.byKey.get(feedKeyOfTopic(topic));
    if (!recorded || recorded.length === 0) return [];
    const out: PriceTick[] = [];
    const reference = this.lastBefore(recorded, from);
    if (reference) out.push(reference);
    // One lap more on each side: lapOf rounds, firstIndexAtOrAfter and `at >= to` decide exactly.
    const lastLap = this.loop ? this.lapOf(to) + 1 : 0;
    for (let lap = Math.max(this.firstLap, this.lapOf(from) - 1); lap <= lastLap; lap += 1) {
      for (let index = this.firstIndexAtOrAfter(recorded, lap, from); index < recorded.length; index += 1) {
        const tick = recorded[index] as RecordedTick;
        const at = this.timeOf(tick.at, lap);
        if (at >= to) break;
        out.push({ at, price: tick.price, volume: tick.volume });
      }
    }
    return out;
  }

  candles(topic: PriceTopic, timeframeMs: number, from: number, to: number): Candle[] {
    const first = firstBucketStartFrom(from, timeframeMs);
    return candlesFromTicks(this.ticks(topic, first, to), timeframeMs, first, to);
  }

  /** Replay time of a recorded instant in a lap: the same arithmetic as ReplaySource.timeOf. */
  private timeOf(recordedAt: number, lap: number): number {
    const recorded = recordedAt - this.first + lap * this.span;
    return this.first + this.shiftMs + recorded / this.speed;
  }

  /** The lap a replay instant falls in (0 without loop). */
  private lapOf(at: number): number {
    if (!this.loop) return 0;
    return Math.floor(((at - this.first - this.shiftMs) * this.speed) / this.span);
  }

  private firstIndexAtOrAfter(recorded: RecordedTick[], lap: number, at: number): number {
    let low = 0;
    let high = recorded.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.timeOf((recorded[middle] as RecordedTick).at, lap) < at) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private lastBefore(recorded: RecordedTick[], at: number): PriceTick | undefined {
    const lastLap = this.loop ? this.lapOf(at) + 1 : 0;
    for (let lap = lastLap; lap >= this.firstLap; lap -= 1) {
      const index = this.firstIndexAtOrAfter(recorded, lap, at) - 1;
      if (index >= 0) {
        const tick = recorded[index] as RecordedTick;
        return { at: this.timeOf(tick.at, lap), price: tick.price, volume: tick.volume };
      }
    }
    return undefined;
  }
}
