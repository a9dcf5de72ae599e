import { Deque } from './deque.js';

/** A trade tick as the window keeps it. */
export interface Tick {
  readonly at: number;
  readonly price: number;
  readonly volume: number;
}

/**
 * Rolling statistics of the ticks of one symbol over a duration, for the price methods `change`,
 * `high`, `low` and `volume` (docs/semantics.md section 2).
 *
 * "Now" is the time of the last tick added; the window is the half-open interval
 * `(now - duration, now]`, so it always holds the last tick.
 *
 * - `change()`: percent change of the last price against the **reference** price, the last tick at or
 *   before `now - duration`. Undefined until the window is covered (until some tick is that old), and
 *   when the reference price is 0.
 * - `high()`, `low()`: extreme prices of the ticks in the window. Defined from the first tick on: before
 *   the window is covered they are the extremes of the ticks seen so far (see `covered()`).
 * - `volume()`: sum of the tick volumes in the window (the reference tick's volume is outside it).
 *
 * Each `add` is amortized O(1): the ticks in the window sit in a queue, the candidates for the maximum
 * and minimum in two monotonic queues (a price is dropped as soon as a later tick is at least as high,
 * respectively as low, since it can no longer be the extreme), and ticks that leave the window are
 * evicted except for the latest of them, kept as the reference of `change`. The volume sum is kept
 * incrementally and recomputed from the queue whenever as many ticks have left as remain, which bounds
 * floating-point drift at no asymptotic cost.
 *
 * Ticks must come in time order: a tick earlier than the last one is ignored, as are ticks with a
 * non-finite time or price. Equal times are fine. A non-finite or negative volume counts as 0.
 */
export class PriceWindow {
  private readonly ticks = new Deque<Tick>();
  private readonly maxima = new Deque<Tick>();
  private readonly minima = new Deque<Tick>();
  private reference: Tick | undefined;
  private latest: Tick | undefined;
  private volumeSum = 0;
  private evictedSinceSum = 0;

  /** @param durationMs the window length in milliseconds, positive. */
  constructor(readonly durationMs: number) {
    if (!(durationMs > 0) || !Number.isFinite(durationMs)) throw new RangeError(`invalid window duration: ${durationMs}`);
  }

  /** Adds a tick (see the class comment for the ticks that are ignored). */
  add(at: number, price: number, volume = 0): void {
    if (!Number.isFinite(at) || !Number.isFinite(price)) return;
    if (this.latest !== undefined && at < this.latest.at) return;
    const tick: Tick = { at, price, volume: Number.isFinite(volume) && volume > 0 ? volume : 0 };
    this.latest = tick;
    this.ticks.push(tick);
    this.volumeSum += tick.volume;
    while ((this.maxima.back()?.price ?? Infinity) <= price) this.maxima.pop();
    this.maxima.push(tick);
    while ((this.minima.back()?.price ?? -Infinity) >= price) this.minima.pop();
    this.minima.push(tick);
    this.evict(at - this.durationMs);
  }

  /** Whether some tick is at or before `now - duration`, so that the window spans its whole length. */
  covered(): boolean {
    return this.reference !== undefined;
  }

  /** The last tick added. */
  last(): Tick | undefined {
    return this.latest;
  }

  /** Percent change of the last price against the price `duration` ago; undefined until covered. */
  change(): number | undefined {
    const reference = this.reference;
    if (reference === undefined || this.latest === undefined || reference.price === 0) return undefined;
    return ((this.latest.price - reference.price) / reference.price) * 100;
  }

  /** The highest price in the window; undefined before the first tick. */
  high(): number | undefined {
    return this.maxima.front()?.price;
  }

  /** The lowest price in the window; undefined before the first tick. */
  low(): number | undefined {
    return this.minima.front()?.price;
  }

  /** The summed volume of the ticks in the window; undefined before the first tick. */
  volume(): number | undefined {
    return this.latest === undefined ? undefined : this.volumeSum;
  }

  /** Drops every tick at or before `cutoff`, keeping the latest of them as the reference. */
  private evict(cutoff: number): void {
    for (let front = this.ticks.front(); front !== undefined && front.at <= cutoff; front = this.ticks.front()) {
      this.ticks.shift();
      this.reference = front;
      this.volumeSum -= front.volume;
      this.evictedSinceSum += 1;
    }
    while ((this.maxima.front()?.at ?? Infinity) <= cutoff) this.maxima.shift();
    while ((this.minima.front()?.at ?? Infinity) <= cutoff) this.minima.shift();
    if (this.evictedSinceSum > 0 && this.evictedSinceSum >= this.ticks.length) {
      let sum = 0;
      for (const tick of this.ticks) sum += tick.volume;
      this.volumeSum = sum;
      this.evictedSinceSum = 0;
    }
  }
}
