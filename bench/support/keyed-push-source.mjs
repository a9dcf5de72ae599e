// A push DataSource keyed by asset: `push` looks up the one Subject of the observation's asset (one
// baseAsset() call per push) instead of running every open topic's filter, as PushSource does.
// Benchmark-only: bench/engine.mjs uses it for a supplementary row that shows what the engine itself
// reaches once the source fan-out is O(1) per push (the fix suggested for PushSource).
import { Observable, Subject } from 'rxjs';
import { baseAsset } from '@eql/core';

export class KeyedPushSource {
  name = 'keyed-push';
  prices = new Map();
  last = new Map();

  push(observation) {
    if (observation.source !== 'price') throw new Error('this benchmark source carries prices only');
    const asset = baseAsset(observation.symbol);
    this.last.set(asset, observation);
    this.prices.get(asset)?.next(observation);
  }

  supports(topic) {
    return topic.source === 'price';
  }

  observe(topic) {
    const asset = baseAsset(topic.symbol);
    return new Observable((subscriber) => {
      const last = this.last.get(asset);
      if (last) subscriber.next(last);
      let subject = this.prices.get(asset);
      if (!subject) this.prices.set(asset, (subject = new Subject()));
      return subject.subscribe(subscriber);
    });
  }
}
