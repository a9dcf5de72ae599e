import type { Observation, Recording } from '@eql/core';
import type { BusPublisher, Publication } from './bus-publisher.js';

/** The replay feed's timeline, as every host of a cluster computes it (the origin is a cluster setting). */
export interface ReplayTimeline {
  /** Where the recording's first instant plays (epoch ms). */
  origin: number;
  /** 1 is real time, 60 a recorded minute per second. */
  speed: number;
}

/** What {@link ReplayPublisher} needs. */
export interface ReplayPublisherOptions {
  recording: Recording;
  timeline: ReplayTimeline;
  publisher: BusPublisher;
  /** The instant of the last observation in the stream (a leader that takes over goes on after it). */
  lastPublishedAt(): Promise<number | undefined>;
  /** How far back a new leader publishes what nobody published (default 5 minutes); older gaps are skipped. */
  maxBacklogMs?: number;
  now?: () => number;
  warn?: (message: string, error?: unknown) => void;
}

/**
 * The cluster's replay feed on the market bus, run by the host that holds the feed's lease: the recording
 * plays on the cluster's timeline (looping, at the configured speed), each observation published once
 * with an id of its lap and line (`replay:<lap>:<line>`), so that a leader taking over re-publishes
 * nothing its predecessor stored and fills the gap since its last message.
 */
export class ReplayPublisher {
  private readonly observations: readonly Observation[];
  private readonly span: number;
  private lap = 0;
  private cursor = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly options: ReplayPublisherOptions) {
    this.observations = options.recording.observations.filter((observation) => observation.source !== 'llm');
    const first = this.observations[0]?.at ?? 0;
    const last = this.observations[this.observations.length - 1]?.at ?? first;
    this.span = last - first + 60_000;
  }

  /**
   * The instant observation `index` of lap `lap` plays at (as ReplaySource computes it), in whole ms: the
   * bus carries integer epoch ms (a speed such as 7 would give fractions, which readers skip).
   */
  private timeOf(index: number, lap: number): number {
    const first = this.observations[0]?.at ?? 0;
    const recorded = (this.observations[index]?.at ?? first) - first + lap * this.span;
    return Math.round(this.options.timeline.origin + recorded / this.options.timeline.speed);
  }

  /** Starts publishing after the stream's last observation (or the backlog bound), then as the timeline plays. */
  async start(): Promise<void> {
    if (!this.stopped || this.observations.length === 0) return;
    this.stopped = false;
    const now = (this.options.now ?? Date.now)();
    const last = await this.options.lastPublishedAt().catch(() => undefined);
    const from = Math.max(last === undefined ? now : last + 1, now - (this.options.maxBacklogMs ?? 300_000));
    this.seek(from);
    this.arm(0);
  }

  /** Puts the cursor on the first observation that plays at or after `from`. */
  private seek(from: number): void {
    const count = this.observations.length;
    this.lap = Math.max(0, Math.floor(((from - this.options.timeline.origin) * this.options.timeline.speed) / this.span));
    this.cursor = 0;
    while (this.timeOf(this.cursor, this.lap) < from) {
      this.cursor += 1;
      if (this.cursor === count) {
        this.cursor = 0;
        this.lap += 1;
      }
    }
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.publishDue().finally(() => (this.running = undefined));
    }, Math.max(0, delayMs));
    this.timer.unref();
  }

  /** Publishes every observation due now, in order; then waits for the next. A failed publish is tried again. */
  private async publishDue(): Promise<void> {
    const now = (this.options.now ?? Date.now)();
    const due: Publication[] = [];
    let lap = this.lap;
    let cursor = this.cursor;
    while (this.timeOf(cursor, lap) <= now && due.length < 5_000) {
      const observation = { ...(this.observations[cursor] as Observation), at: this.timeOf(cursor, lap) };
      due.push({ observation, id: `replay:${lap}:${cursor}` });
      cursor += 1;
      if (cursor === this.observations.length) {
        cursor = 0;
        lap += 1;
      }
    }
    try {
      if (due.length > 0) await this.options.publisher.publish(due);
      this.lap = lap;
      this.cursor = cursor;
      this.arm(this.timeOf(this.cursor, this.lap) - (this.options.now ?? Date.now)());
    } catch (error) {
      this.options.warn?.('bus: the replay feed could not publish (trying again in 1 s)', error);
      this.arm(1_000);
    }
  }

  /** Stops publishing (the feed's lease is gone); resolves when nothing is being published. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
