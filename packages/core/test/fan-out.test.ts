import fc from 'fast-check';
import { config, Subject, type Observable, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { FanOut } from '../src/engine/fan-out.js';

// FanOut stands in for an RxJS Subject on the hot paths (a pushed tick, an engine event): whatever is done
// to it, including from inside a subscriber while a value is delivered, its subscribers see exactly what
// a Subject's would.

type Step =
  | { kind: 'subscribe' }
  | { kind: 'unsubscribe'; which: number }
  | { kind: 'next'; value: number }
  | { kind: 'complete' }
  // While the next value is delivered, its subscriber number `by` subscribes a new one, or unsubscribes number `which`.
  | { kind: 'next-subscribing'; value: number; by: number }
  | { kind: 'next-unsubscribing'; value: number; by: number; which: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'subscribe' as const }),
  fc.record({ kind: fc.constant('unsubscribe' as const), which: fc.nat(9) }),
  fc.record({ kind: fc.constant('next' as const), value: fc.integer() }),
  fc.constant({ kind: 'complete' as const }),
  fc.record({ kind: fc.constant('next-subscribing' as const), value: fc.integer(), by: fc.nat(9) }),
  fc.record({ kind: fc.constant('next-unsubscribing' as const), value: fc.integer(), by: fc.nat(9), which: fc.nat(9) }),
);

interface Stream {
  observable: Observable<number>;
  next(value: number): void;
  complete(): void;
  readonly observed: boolean;
}

/** Runs the steps on a stream; returns what every subscriber saw, in order, and `observed` after each step. */
function run(stream: Stream, steps: Step[]): string[] {
  const log: string[] = [];
  const subscriptions: Subscription[] = [];
  let action: ((subscriber: number) => void) | undefined;
  const subscribe = (): void => {
    const id = subscriptions.length;
    subscriptions.push(
      stream.observable.subscribe({
        next: (value) => {
          log.push(`${id}:${value}`);
          const act = action;
          if (act) act(id);
        },
        complete: () => log.push(`${id}:complete`),
      }),
    );
  };
  for (const step of steps) {
    switch (step.kind) {
      case 'subscribe':
        subscribe();
        break;
      case 'unsubscribe':
        subscriptions[step.which]?.unsubscribe();
        break;
      case 'next':
        stream.next(step.value);
        break;
      case 'complete':
        stream.complete();
        break;
      case 'next-subscribing':
        action = (id) => {
          if (id !== step.by) return;
          action = undefined;
          subscribe();
        };
        stream.next(step.value);
        action = undefined;
        break;
      case 'next-unsubscribing':
        action = (id) => {
          if (id === step.by) subscriptions[step.which]?.unsubscribe();
        };
        stream.next(step.value);
        action = undefined;
        break;
    }
    log.push(`observed:${stream.observed}`);
  }
  return log;
}

function subjectStream(): Stream {
  const subject = new Subject<number>();
  return {
    observable: subject.asObservable(),
    next: (value) => subject.next(value),
    complete: () => subject.complete(),
    get observed() {
      return subject.observed;
    },
  };
}

describe('FanOut', () => {
  it('delivers what a Subject delivers, whatever is done to it, from outside or from a subscriber', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        expect(run(new FanOut<number>(), steps)).toEqual(run(subjectStream(), steps));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a throwing subscriber from the others (RxJS reports the error)', async () => {
    const fanOut = new FanOut<number>();
    const seen: number[] = [];
    const reported: unknown[] = [];
    const before = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      fanOut.observable.subscribe(() => {
        throw new Error('a subscriber bug');
      });
      fanOut.observable.subscribe((value) => seen.push(value));
      fanOut.next(1);
      fanOut.next(2);
      expect(seen).toEqual([1, 2]);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(reported).toEqual([new Error('a subscriber bug'), new Error('a subscriber bug')]);
    } finally {
      config.onUnhandledError = before;
    }
  });
});
