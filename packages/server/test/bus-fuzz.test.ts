import fc from 'fast-check';
import { afterAll, expect, it, onTestFailed } from 'vitest';
import { createQuery } from './support/harness.js';
import { fuzzRuns } from './support/fuzz-runs.js';
import { adminQuery } from './support/postgres.js';
import { describeWithBus } from './support/nats.js';
import { type BusCluster, startBusCluster } from './support/bus-hosts.js';

// The bus family of `npm run fuzz` (issue 45): random observations, valid and malformed, published raw
// into the stream of a cluster of two real `eql serve` processes, EQL_FUZZ_RUNS of them (a few hundred
// in `npm test`, 10,000 in `npm run fuzz`). No host exits; every partition of both hosts judges every
// valid observation and counts every malformed message; the history recorder writes every valid price
// and counts every malformed message; every position passes the last message; and a valid price after
// them all still fires its query. Each message is valid or malformed by construction (never by asking
// the rule under test).

let cluster: BusCluster | undefined;
afterAll(async () => {
  await cluster?.close();
});

interface Message {
  valid: boolean;
  /** A price (what the history records). */
  price: boolean;
  subject: string;
  payload: string;
}

const AT = Date.now();
const at = fc.integer({ min: AT - 600_000, max: AT });
const text = fc.string({ unit: 'binary', maxLength: 30 });
const nonBlank = fc.constantFrom('a', 'BTC news', 'x y', 'é', '日本');
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const validPrice = fc.record({
  at,
  source: fc.constant('price'),
  symbol: fc.constantFrom('BTC', 'ETH', 'SOL', 'BTC/USDT', 'eth-perp', 'doge'),
  price: fc.double({ min: 1e-9, max: 1e9, noNaN: true }),
  volume: optional(fc.oneof(fc.constant(null), fc.double({ min: 0, max: 1e6, noNaN: true }))),
  exchange: optional(fc.constantFrom('binance', 'kraken')),
  extra: optional(fc.jsonValue({ maxDepth: 2 })),
});
const validTweet = fc.record({
  at,
  source: fc.constant('tweet'),
  username: fc.constantFrom('elon', 'vitalik', 'someone_else'),
  text,
  tweetId: fc.integer({ min: 1 }).map(String),
  url: optional(fc.constant('https://x.com/a/status/1')),
});
const validNews = fc.record({ at, source: fc.constant('news'), text: nonBlank, url: optional(fc.constant('https://example.com/n')), id: optional(nonBlank) });

/** The JSON of a record, its absent optional fields left out. */
const json = (value: Record<string, unknown>) => JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)));

/** A field of a valid observation made wrong: what each source requires, and a value it must not have. */
const WRONG: Record<string, Record<string, unknown[]>> = {
  price: { at: ['2026-01-05T00:00:00Z', AT + 0.5, 9e15, null, true, -9e15 - 1], symbol: [7, '', '  ', null, ['BTC'], { s: 1 }], price: [0, -1, '100', null, false] },
  tweet: { at: ['now', AT + 0.25, null], username: ['@elon', 5, '', null], text: [7, null, ['t']], tweetId: ['', 1, null] },
  news: { at: [String(AT), {}], text: ['', ' ', 3, null] },
};

const malformedField = fc
  .tuple(fc.oneof(validPrice, validTweet, validNews), fc.nat(), fc.nat(), fc.boolean())
  .map(([observation, whichField, whichValue, remove]) => {
    const wrong = WRONG[observation.source]!;
    const fields = Object.keys(wrong);
    const field = fields[whichField % fields.length]!;
    const values = wrong[field]!;
    const record: Record<string, unknown> = { ...observation };
    if (remove) delete record[field];
    else record[field] = values[whichValue % values.length];
    return json(record);
  });

const malformed: fc.Arbitrary<string> = fc.oneof(
  malformedField,
  fc.constantFrom('null', '42', '"price"', '[]', 'true', '', ' '),
  fc.record({ at, source: fc.oneof(fc.constantFrom('llm', 'PRICE', 'trade', ''), fc.integer()), symbol: fc.constant('BTC'), price: fc.constant(1) }).map(json),
  fc.record({ at, source: fc.constant('llm'), query: fc.constant('q'), confidence: fc.integer({ min: 0, max: 100 }) }).map(json),
  // A valid message cut short: never JSON.
  fc.tuple(validPrice, fc.nat()).map(([observation, cut]) => {
    const whole = json(observation);
    return whole.slice(0, 1 + (cut % (whole.length - 1)));
  }),
);

const message: fc.Arbitrary<Message> = fc.oneof(
  { weight: 2, arbitrary: validPrice.map((observation) => ({ valid: true, price: true, subject: 'price.BTC', payload: json(observation) })) },
  { weight: 1, arbitrary: fc.oneof(validTweet, validNews).map((observation) => ({ valid: true, price: false, subject: observation.source === 'news' ? 'news' : 'tweet.elon', payload: json(observation) })) },
  { weight: 3, arbitrary: fc.tuple(malformed, fc.constantFrom('price.BTC', 'tweet.elon', 'news', 'x.y.z')).map(([payload, subject]) => ({ valid: false, price: false, subject, payload })) },
);

await describeWithBus('the market bus under random and malformed messages (npm run fuzz)', () => {
  it(`two hosts judge every valid observation and count every malformed one, none exits (${fuzzRuns(300)} messages)`, { timeout: 900_000 }, async () => {
    const count = fuzzRuns(300);
    const seed = Number(process.env.EQL_FUZZ_SEED) || Math.floor(Math.random() * 2 ** 31);
    onTestFailed(() => console.error(`bus fuzz: seed ${seed} (EQL_FUZZ_SEED=${seed} to run it again), ${count} messages`));
    const messages = fc.sample(message, { numRuns: count, seed });

    cluster = await startBusCluster('bus_fuzz', { hosts: 2, partitions: 4 });
    const c = cluster;
    // A crossing re-arms (cooldown 1 s); a level fires once (re-armed, it would fire every second while it holds).
    const fire = (title: string, symbol: string, operator: string, value: number) =>
      createQuery(c.bases()[title.length % 2]!, c.key, {
        title,
        query: {
          conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator, value }] },
          actions: [{ stepId: 'tell', type: 'notify', params: { message: title } }],
          expiresIn: '1h',
          ...(operator.startsWith('crosses') ? { repeat: { cooldown: '1s' } } : {}),
        },
      });
    // Queries the random prices move, and one only the last message fires.
    await fire('btc', 'BTC', 'crosses_above', 1_000);
    await fire('eth low', 'ETH', '<', 10);
    const finalQuery = await fire('the last one', 'FUZZLAST', '>', 0);
    await c.waitFor(async () => (await c.readiness()).reduce((sum, state) => sum + state.queries, 0) === 3, 'the queries to run on their owners');

    const valid = messages.filter((entry) => entry.valid).length + 1;
    const bad = messages.length + 1 - valid;
    const prices = messages.filter((entry) => entry.price).length + 1;
    // Published in flights of 100 (the stream orders them as the server stores them).
    for (let start = 0; start < messages.length; start += 100) await Promise.all(messages.slice(start, start + 100).map((entry) => c.publishRaw(entry.subject, entry.payload)));
    const last = await c.publishRaw('price.FUZZLAST', JSON.stringify({ at: Date.now(), source: 'price', symbol: 'FUZZLAST', price: 1 }));
    expect(last).toBe(messages.length + 1);

    await c.waitFor(async () => {
      const states = await c.readiness();
      const partitions = states.flatMap((state) => Object.values(state.bus.positions));
      const history = states.find((state) => state.feedLeader)?.bus.history;
      const saved = await c.positions();
      return partitions.length === 4 && partitions.every((position) => position.handled === last) && history?.handled === last && [-1, 0, 1, 2, 3].every((partition) => (saved.get(partition) ?? 0) >= last);
    }, `every partition and the history recorder to pass message ${last}`);
    const states = await c.readiness();
    for (const state of states) {
      for (const [partition, position] of Object.entries(state.bus.positions)) expect({ partition, judged: position.judged, malformed: position.malformed }).toEqual({ partition, judged: valid, malformed: bad });
    }
    expect(states.find((state) => state.feedLeader)?.bus.history).toEqual({ handled: last, saved: last, malformed: bad, dropped: 0 });
    const ticks = await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${c.schema.name}.price_ticks`);
    expect(ticks[0]!.n).toBe(prices);
    await c.waitFor(async () => (await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${c.schema.name}.notifications WHERE query_id = $1`, [finalQuery]))[0]!.n === 1, 'the last price to fire its query');
    // Each kind of problem logged once per host, whatever the count.
    for (const host of c.hosts) expect(host.output().split('\n').filter((line) => line.includes('is not an observation')).length).toBeLessThanOrEqual(30);
    expect(c.exited()).toEqual([]);
  });
});
