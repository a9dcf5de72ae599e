import fc from 'fast-check';
import { config, Observable, Subject, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ObservationListener } from '../src/engine/interfaces.js';
import { feedKeyOfObservation, feedKeyOfTopic, type Observation, type Topic } from '../src/engine/observations.js';
import { PushSource } from '../src/engine/push-source.js';

// PushSource hands a pushed observation straight to its feed's listeners (no RxJS Subject on the tick path).
// Whatever is done to it, through `observe` or `listen`, from outside or from a listener while an
// observation is delivered, each listener sees exactly what it would see on a reference made of one RxJS
// Subject per feed and the feed's last price, where `listen(topic, f)` is `observe(topic).subscribe(f)`.

const TOPICS: Topic[] = [
  { source: 'price', symbol: 'BTC/USDT' },
  { source: 'price', symbol: 'BTC' },
  { source: 'price', symbol: 'ETH/USDT' },
  { source: 'tweet', username: 'Alice' },
  { source: 'news' },
];

const OBSERVATIONS: Observation[] = [
  { at: 1, source: 'price', symbol: 'BTC/USDT', price: 100 },
  { at: 2, source: 'price', symbol: 'btc', price: 101 },
  { at: 3, source: 'price', symbol: 'ETH/USDT', price: 5 },
  { at: 4, source: 'tweet', username: 'alice', text: 'gm', tweetId: 't1' },
  { at: 5, source: 'news', text: 'a headline' },
];

type Step =
  | { kind: 'observe'; topic: number }
  | { kind: 'listen'; topic: number }
  // The function of listener `which`, given to `listen` once more: a second listener.
  | { kind: 'listen-again'; which: number; topic: number }
  | { kind: 'stop'; which: number }
  | { kind: 'push'; observation: number }
  // While the observation is delivered, listener `by` starts a new listener, or stops listener `which`.
  | { kind: 'push-starting'; observation: number; by: number; topic: number }
  | { kind: 'push-stopping'; observation: number; by: number; which: number };

// Most steps touch the first feed (two topics of one asset), so that listeners meet on it often.
const topicArb = fc.oneof({ arbitrary: fc.nat(1), weight: 3 }, { arbitrary: fc.nat(TOPICS.length - 1), weight: 1 });
const observationArb = fc.oneof({ arbitrary: fc.nat(1), weight: 3 }, { arbitrary: fc.nat(OBSERVATIONS.length - 1), weight: 1 });
/** A listener by the order it started: most programs start a handful. */
const listenerArb = fc.nat(5);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('observe' as const), topic: topicArb }),
  fc.record({ kind: fc.constant('listen' as const), topic: topicArb }),
  fc.record({ kind: fc.constant('listen-again' as const), which: listenerArb, topic: topicArb }),
  fc.record({ kind: fc.constant('stop' as const), which: listenerArb }),
  fc.record({ kind: fc.constant('push' as const), observation: observationArb }),
  fc.record({ kind: fc.constant('push-starting' as const), observation: observationArb, by: listenerArb, topic: topicArb }),
  fc.record({ kind: fc.constant('push-stopping' as const), observation: observationArb, by: listenerArb, which: listenerArb }),
);

/** What the program needs of a source: the two ways in, a push, and whether anything listens. */
interface Source {
  observe(topic: Topic): Observable<Observation>;
  listen(topic: Topic, listener: ObservationListener): () => void;
  push(observation: Observation): void;
  readonly observed: boolean;
}

/** The reference: one Subject per feed key, and the feed's last price given first to a new subscriber. */
function referenceSource(): Source {
  const feeds = new Map<string, { subject: Subject<Observation>; last?: Observation }>();
  const feedOf = (key: string) => {
    let feed = feeds.get(key);
    if (!feed) {
      feed = { subject: new Subject<Observation>() };
      feeds.set(key, feed);
    }
    return feed;
  };
  const observe = (topic: Topic) =>
    new Observable<Observation>((subscriber) => {
      const feed = feedOf(feedKeyOfTopic(topic));
      if (feed.last) subscriber.next(feed.last);
      return feed.subject.subscribe(subscriber);
    });
  return {
    observe,
    listen: (topic, listener) => {
      const subscription = observe(topic).subscribe(listener);
      return () => subscription.unsubscribe();
    },
    push: (observation) => {
      const feed = feedOf(feedKeyOfObservation(observation) as string);
      if (observation.source === 'price') feed.last = observation;
      feed.subject.next(observation);
    },
    get observed() {
      for (const feed of feeds.values()) if (feed.subject.observed) return true;
      return false;
    },
  };
}

/** Runs the steps; returns what every listener saw, in order, and `observed` after each step. */
function run(source: Source, steps: Step[]): string[] {
  const log: string[] = [];
  const stops: Array<() => void> = [];
  const functions: ObservationListener[] = [];
  let action: ((listener: number) => void) | undefined;
  const listenerOf = (id: number): ObservationListener => (observation) => {
    log.push(`${id}:${observation.at}`);
    const act = action;
    if (act) act(id);
  };
  const start = (topic: number, how: 'observe' | 'listen', again?: ObservationListener): void => {
    const id = functions.length;
    const listener = again ?? listenerOf(id);
    functions.push(listener);
    if (how === 'listen') stops.push(source.listen(TOPICS[topic] as Topic, listener));
    else {
      const subscription: Subscription = source.observe(TOPICS[topic] as Topic).subscribe(listener);
      stops.push(() => subscription.unsubscribe());
    }
  };
  for (const step of steps) {
    switch (step.kind) {
      case 'observe':
      case 'listen':
        start(step.topic, step.kind);
        break;
      case 'listen-again': {
        const again = functions[step.which];
        if (again) start(step.topic, 'listen', again);
        break;
      }
      case 'stop':
        stops[step.which]?.();
        break;
      case 'push':
        source.push(OBSERVATIONS[step.observation] as Observation);
        break;
      case 'push-starting':
        action = (id) => {
          if (id !== step.by) return;
          action = undefined;
          start(step.topic, 'listen');
        };
        source.push(OBSERVATIONS[step.observation] as Observation);
        action = undefined;
        break;
      case 'push-stopping':
        action = (id) => {
          if (id === step.by) stops[step.which]?.();
        };
        source.push(OBSERVATIONS[step.observation] as Observation);
        action = undefined;
        break;
    }
    log.push(`observed:${source.observed}`);
  }
  return log;
}

describe('PushSource', () => {
  it('delivers what one Subject per feed delivers, through listen or observe, whatever is done from outside or from a listener', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        expect(run(new PushSource(), steps)).toEqual(run(referenceSource(), steps));
      }),
      { numRuns: 1000 },
    );
  });

  it('gives a new listener the last price of its asset at once, and the same function twice is two listeners', () => {
    const source = new PushSource();
    source.push({ at: 1, source: 'price', symbol: 'BTC/USDT', price: 100 });
    const seen: string[] = [];
    const listener: ObservationListener = (observation) => seen.push(`${observation.at}`);
    const stopFirst = source.listen({ source: 'price', symbol: 'BTC' }, listener);
    const stopSecond = source.listen({ source: 'price', symbol: 'BTC' }, listener);
    expect(seen).toEqual(['1', '1']);
    stopFirst();
    stopFirst();
    source.push({ at: 2, source: 'price', symbol: 'btc', price: 101 });
    expect(seen).toEqual(['1', '1', '2']);
    stopSecond();
    expect(source.observed).toBe(false);
  });

  it('keeps a throwing listener from the others and reports its error later, as RxJS reports a subscriber error', async () => {
    const source = new PushSource();
    const seen: number[] = [];
    const reported: unknown[] = [];
    const before = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      source.listen({ source: 'news' }, () => {
        throw new Error('a listener bug');
      });
      source.listen({ source: 'news' }, (observation) => seen.push(observation.at));
      source.push({ at: 1, source: 'news', text: 'one' });
      source.push({ at: 2, source: 'news', text: 'two' });
      expect(seen).toEqual([1, 2]);
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(reported).toEqual([new Error('a listener bug'), new Error('a listener bug')]);
    } finally {
      config.onUnhandledError = before;
    }
  });
});
