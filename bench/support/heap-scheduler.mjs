// A virtual-time scheduler for benchmarks: the clock is set by the caller (`advanceTo`), timers sit in
// an indexed binary heap (O(log n) to schedule and to cancel). rxjs's VirtualTimeScheduler re-sorts its
// whole action array on every schedule and never drops cancelled actions, which makes adding 100k
// queries (one expiry timer each) quadratic; this one does not. Implements rxjs SchedulerLike.
import { Subscription } from 'rxjs';

class HeapAction extends Subscription {
  constructor(scheduler, work) {
    super();
    this.scheduler = scheduler;
    this.work = work;
    this.at = 0;
    this.seq = 0;
    this.state = undefined;
    this.slot = -1;
  }

  schedule(state, delay = 0) {
    if (this.closed) return this;
    this.scheduler.remove(this);
    this.state = state;
    this.at = this.scheduler.now() + Math.max(0, delay);
    this.scheduler.insert(this);
    return this;
  }

  unsubscribe() {
    if (this.closed) return;
    this.scheduler.remove(this);
    super.unsubscribe();
  }
}

export class HeapVirtualScheduler {
  constructor(start = 0) {
    this.frame = start;
    this.heap = [];
    this.counter = 0;
  }

  now() {
    return this.frame;
  }

  get pending() {
    return this.heap.length;
  }

  schedule(work, delay = 0, state) {
    return new HeapAction(this, work).schedule(state, delay);
  }

  /** Moves the clock to `time`, running every timer due at or before it, in time order. */
  advanceTo(time) {
    while (this.heap.length > 0 && this.heap[0].at <= time) {
      const action = this.heap[0];
      this.remove(action);
      this.frame = Math.max(this.frame, action.at);
      action.work.call(action, action.state);
      if (action.slot < 0 && !action.closed) action.unsubscribe();
    }
    this.frame = Math.max(this.frame, time);
  }

  insert(action) {
    action.seq = this.counter++;
    action.slot = this.heap.length;
    this.heap.push(action);
    this.up(action.slot);
  }

  remove(action) {
    const slot = action.slot;
    if (slot < 0) return;
    action.slot = -1;
    const last = this.heap.pop();
    if (slot === this.heap.length) return;
    this.heap[slot] = last;
    last.slot = slot;
    this.down(this.up(slot));
  }

  less(a, b) {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  up(index) {
    const heap = this.heap;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.less(heap[index], heap[parent])) break;
      this.swap(index, parent);
      index = parent;
    }
    return index;
  }

  down(index) {
    const heap = this.heap;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && this.less(heap[left], heap[smallest])) smallest = left;
      if (right < heap.length && this.less(heap[right], heap[smallest])) smallest = right;
      if (smallest === index) return index;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  swap(i, j) {
    const heap = this.heap;
    const a = heap[i];
    const b = heap[j];
    heap[i] = b;
    heap[j] = a;
    a.slot = j;
    b.slot = i;
  }
}
