import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ItemWatcher } from '../src/engine/channels/item-channel.js';
import { TopicChannels, type TopicEntry } from '../src/engine/channels/topic-channels.js';
import type { DataSource } from '../src/engine/interfaces.js';
import type { Observation, Topic } from '../src/engine/observations.js';
import { PushSource } from '../src/engine/push-source.js';

const BTC: Topic = { source: 'price', symbol: 'BTC' };
const ETH: Topic = { source: 'price', symbol: 'ETH' };
const NEWS: Topic = { source: 'news' };
const CURRENT = { source: 'price' as const, method: 'current', args: {} };

function channelsOver(sources: DataSource[]) {
  const observed: Array<[string, number]> = [];
  const problems: string[] = [];
  const channels = new TopicChannels({
    sources,
    history: [],
    now: () => 0,
    observe: (entry: TopicEntry, observation: Observation) => observed.push([entry.topic.source, observation.at]),
    warmed: () => undefined,
    problem: (code, message) => problems.push(`${code}: ${message}`),
  });
  return { channels, observed, problems };
}

const watcher: ItemWatcher = { queryId: 'q', offer: () => undefined };

describe('TopicChannels', () => {
  it('opens one upstream subscription per topic, shared by its users, and closes it when the last goes', () => {
    const source = new PushSource();
    const { channels, observed } = channelsOver([source]);
    const first = channels.acquireSeries(BTC, CURRENT);
    const second = channels.acquireSeries(BTC, { source: 'price', method: 'change', args: { period: '1h' } });
    channels.acquireSeries(ETH, CURRENT);
    channels.watchItems(NEWS, watcher);
    expect(channels.open).toBe(3);
    source.push({ at: 5, source: 'price', symbol: 'BTC', price: 1 });
    expect(observed).toEqual([['price', 5]]);
    channels.releaseSeries(BTC, first);
    expect(channels.open).toBe(3);
    channels.releaseSeries(BTC, second);
    expect(channels.open).toBe(2);
    source.push({ at: 6, source: 'price', symbol: 'BTC', price: 2 });
    expect(observed).toHaveLength(1);
    channels.unwatchItems(NEWS, watcher);
    channels.unwatchItems(NEWS, watcher);
    expect(channels.open).toBe(1);
    channels.dispose();
    expect(channels.open).toBe(0);
    expect(source.observed).toBe(false);
  });

  it('says why a topic no source serves gets nothing, once', () => {
    const { channels, problems } = channelsOver([]);
    channels.acquireSeries(BTC, CURRENT);
    channels.acquireSeries(BTC, CURRENT);
    expect(channels.unavailable(BTC)).toBe('no data source serves prices of BTC');
    expect(channels.unavailable(ETH)).toBeUndefined();
    expect(problems).toEqual(['NO_DATA_SOURCE: no data source serves prices of BTC']);
  });

  it('reports a failing source as a problem, and keeps the last observation time of a topic', () => {
    const failing: DataSource = {
      name: 'failing',
      supports: () => true,
      observe: () =>
        new Observable<Observation>((subscriber) => {
          subscriber.next({ at: 42, source: 'price', symbol: 'BTC', price: 1 });
          subscriber.error(new Error('feed lost'));
        }),
    };
    const { channels, observed, problems } = channelsOver([failing]);
    channels.acquireSeries(BTC, CURRENT);
    expect(observed).toEqual([['price', 42]]);
    expect(problems).toEqual(['DATA_SOURCE_ERROR: feed lost']);
    expect(channels.lastAt(BTC)).toBe(42);
    expect(channels.lastAt(ETH)).toBeUndefined();
  });

  it('listens to a source that can be listened to, and reports one whose listen throws as a failed source', () => {
    const push = new PushSource();
    const pushed = channelsOver([push]);
    pushed.channels.acquireSeries(BTC, CURRENT);
    push.push({ at: 7, source: 'price', symbol: 'BTC', price: 1 });
    expect(pushed.observed).toEqual([['price', 7]]);
    expect(pushed.channels.open).toBe(1);

    const broken: DataSource = {
      name: 'broken',
      supports: () => true,
      observe: () => {
        throw new Error('listen is there: observe must not be called');
      },
      listen: () => {
        throw new Error('feed lost');
      },
    };
    const { channels, observed, problems } = channelsOver([broken]);
    channels.acquireSeries(BTC, CURRENT);
    expect(observed).toEqual([]);
    expect(problems).toEqual(['DATA_SOURCE_ERROR: feed lost']);
    expect(channels.open).toBe(0);
  });
});
