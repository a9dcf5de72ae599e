import { type SchedulerLike, Subscription } from 'rxjs';

/** Longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Schedules `work` after `delayMs`, in steps no timer implementation clamps. */
export function scheduleLong(scheduler: SchedulerLike, delayMs: number, work: () => void): Subscription {
  const holder = new SubscriptionHolder();
  const step = (remaining: number): void => {
    const delay = Math.max(0, Math.min(remaining, MAX_TIMER_MS));
    holder.current = scheduler.schedule(() => {
      if (remaining > MAX_TIMER_MS) step(remaining - MAX_TIMER_MS);
      else work();
    }, delay);
  };
  step(delayMs);
  return holder.subscription;
}

/** A subscription that cancels whichever step of a long timer is pending. */
class SubscriptionHolder {
  current: Subscription | undefined;
  readonly subscription = new Subscription(() => this.current?.unsubscribe());
}
