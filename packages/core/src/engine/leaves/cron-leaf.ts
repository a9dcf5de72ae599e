import type { Subscription } from 'rxjs';
import type { ConditionGroup } from '../condition-tree.js';
import type { ConditionState } from '../interfaces.js';
import { Leaf, type LeafHost } from './leaf.js';

/**
 * A schedule. `once` holds from its instant on (at once if it has passed). `every` is an instant at
 * `startAt + k × period` (k ≥ 0, only future instants) or, without startAt, at `created + k × period`
 * (k ≥ 1); each instant is a pulse, so a repeat policy fires once per period.
 */
export class CronLeaf extends Leaf {
  private timer: Subscription | undefined;

  constructor(
    host: LeafHost,
    path: string,
    holdForMs: number | undefined,
    parent: ConditionGroup | undefined,
    readonly schedule: { kind: 'once'; at: number } | { kind: 'every'; periodMs: number; startAt: number; firstIndex: number },
    private lastPulse: number | undefined,
  ) {
    super(host, path, holdForMs, parent);
  }

  get lastPulseAt(): number | undefined {
    return this.lastPulse;
  }

  attach(): void {
    const now = this.services.now();
    if (this.schedule.kind === 'once') {
      if (this.schedule.at <= now) this.setRaw(true);
      else this.timer = this.services.schedule(this.schedule.at - now, () => this.setRaw(true));
      return;
    }
    this.scheduleNext();
  }

  detach(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  override inputAt(): number | undefined {
    if (this.schedule.kind === 'once') return this.schedule.at <= this.services.now() ? this.schedule.at : undefined;
    return this.lastPulse;
  }

  state(): ConditionState {
    const state: ConditionState = { path: this.path, source: 'cron', method: this.schedule.kind, holds: this.effective, status: 'ready' };
    if (this.since !== undefined) state.since = this.since;
    return state;
  }

  private scheduleNext(): void {
    if (this.schedule.kind !== 'every') return;
    const { periodMs, startAt, firstIndex } = this.schedule;
    const now = this.services.now();
    // The first instant not before now and after the last pulse (instants missed while stopped are skipped).
    let k = Math.max(firstIndex, Math.ceil((now - startAt) / periodMs));
    if (this.lastPulse !== undefined) k = Math.max(k, Math.floor((this.lastPulse - startAt) / periodMs) + 1);
    const next = startAt + k * periodMs;
    this.timer = this.services.schedule(Math.max(0, next - now), () => {
      this.lastPulse = next;
      this.services.persist(this.queryId);
      this.scheduleNext();
      // Judged after the instant's other timers (a holdFor ending at this instant holds with it).
      this.services.deferPulse(this);
    });
  }
}
