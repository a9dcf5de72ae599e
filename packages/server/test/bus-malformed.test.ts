import { afterAll, expect, it } from 'vitest';
import { createQuery } from './support/harness.js';
import { adminQuery } from './support/postgres.js';
import { describeWithBus } from './support/nats.js';
import { type BusCluster, startBusCluster } from './support/bus-hosts.js';

// Messages on the market bus that are no observation (issue 45, findings 2 and 4), published raw into
// the stream of a cluster of two real `eql serve` processes: no host exits, each partition and the
// history recorder skip and count them and move past them, each kind is logged once (never its
// contents), and the valid prices around them are judged and written to the history as before.

let cluster: BusCluster | undefined;
afterAll(async () => {
  await cluster?.close();
});

const HUGE = 'Z'.repeat(200_000);

/** One of each kind the issue names, and a few more: what a host must skip. */
function malformed(at: number): Array<{ name: string; subject: string; payload: string }> {
  const message = (name: string, subject: string, value: unknown) => ({ name, subject, payload: JSON.stringify(value) });
  return [
    message('null', 'price.BTC', null),
    message('a price without symbol', 'price.BTC', { at, source: 'price', price: 120 }),
    message('a numeric symbol', 'price.BTC', { at, source: 'price', symbol: 7, price: 120 }),
    message('a tweet without username', 'tweet.someone', { at, source: 'tweet', text: 'hello', tweetId: '1' }),
    message('at as text', 'price.BTC', { at: new Date(at).toISOString(), source: 'price', symbol: 'BTC', price: 120 }),
    message('at missing', 'price.BTC', { source: 'price', symbol: 'BTC', price: 120 }),
    message('a bare number', 'price.BTC', 42),
    // What `eql bus publish --speed 7` and a replay at EQL_REPLAY_SPEED=7 used to publish: the history refused it.
    message('at a fraction of a ms', 'price.BTC', { at: at + 0.5, source: 'price', symbol: 'BTC', price: 120 }),
    message('a huge username', 'tweet.someone', { at, source: 'tweet', username: `@${HUGE}`, text: 'x', tweetId: '2' }),
    message('an llm verdict (the bus does not carry them)', 'llm', { at, source: 'llm', query: 'q', confidence: 90 }),
    { name: 'not JSON', subject: 'price.BTC', payload: `{"at":${at},"source":"price","symbol":"${HUGE}` },
  ];
}

await describeWithBus('malformed messages on the market bus', () => {
  it('are skipped, counted and logged once by every host, which stays up; valid prices after them still fire queries and reach the history', { timeout: 240_000 }, async () => {
    cluster = await startBusCluster('bus_bad', { hosts: 2, partitions: 4 });
    const c = cluster;
    const queryId = await createQuery(c.bases()[0]!, c.key, {
      title: 'btc above 100',
      query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'BTC above 100' } }], expiresIn: '1h' },
    });
    await c.waitFor(async () => (await c.readiness()).reduce((sum, state) => sum + state.queries, 0) === 1, 'the query to run on its owner');

    const round = async (at: number): Promise<number> => {
      await c.publishRaw('price.BTC', JSON.stringify({ at, source: 'price', symbol: 'BTC', price: 50 }));
      for (const { subject, payload } of malformed(at)) await c.publishRaw(subject, payload);
      // Valid: the history keeps its NUL character as U+FFFD (PostgreSQL's text refuses U+0000; no query can name it).
      await c.publishRaw('price.BTC', JSON.stringify({ at, source: 'price', symbol: 'BTC\u0000', price: 150 }));
      return c.publishRaw('price.BTC', JSON.stringify({ at: at + 1, source: 'price', symbol: 'BTC', price: 150 }));
    };
    const bad = malformed(0).length;
    const notifications = async () => (await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${c.schema.name}.notifications WHERE query_id = $1`, [queryId]))[0]!.n;
    const settled = (last: number, rounds: number) => async () => {
      const states = await c.readiness();
      const partitions = states.flatMap((state) => Object.values(state.bus.positions));
      const history = states.find((state) => state.feedLeader)?.bus.history;
      const saved = await c.positions();
      return (
        partitions.length === 4 &&
        partitions.every((position) => position.handled === last && position.malformed === bad * rounds && position.judged === 3 * rounds) &&
        history?.handled === last &&
        history.malformed === bad * rounds &&
        history.dropped === 0 &&
        [-1, 0, 1, 2, 3].every((partition) => (saved.get(partition) ?? 0) >= last)
      );
    };

    const first = await round(Date.now());
    await c.waitFor(settled(first, 1), 'every partition and the history to pass the first round');
    await c.waitFor(async () => (await notifications()) === 1, 'the query to fire on the valid price after the bad messages');
    const ticks = await adminQuery<{ asset: string; price: number }>(`SELECT asset, price FROM ${c.schema.name}.price_ticks ORDER BY seq`);
    expect(ticks).toEqual([
      { asset: 'BTC', price: 50 },
      { asset: 'BTC\uFFFD', price: 150 },
      { asset: 'BTC', price: 150 },
    ]);
    const logged = () => c.hosts.map((host) => host.output().split('\n').filter((line) => line.includes('is not an observation')).length);
    const afterFirst = logged();
    for (const count of afterFirst) {
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThanOrEqual(bad);
    }

    // The same again: counted, not logged again; the long contents are never printed.
    const second = await round(Date.now());
    await c.waitFor(settled(second, 2), 'every partition and the history to pass the second round');
    expect(logged()).toEqual(afterFirst);
    for (const host of c.hosts) {
      expect(host.output()).not.toContain('ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ');
      expect(Math.max(...host.output().split('\n').map((line) => line.length))).toBeLessThan(2_000);
    }
    expect(c.exited()).toEqual([]);
  });
});
