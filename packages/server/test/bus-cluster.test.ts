import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it, onTestFailed, vi } from 'vitest';
import { Engine, type EngineEvent, type Observation, parseRecording, PushSource } from '@eql/core';
import { asyncScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { buildServer, createApiKey, type Host, PgHostStore, SecretBox } from '../src/index.js';
import { MarketBus } from '../src/scale-out/market-bus.js';
import { BusPublisher, type Publication } from '../src/scale-out/bus-publisher.js';
import { type ChildHost, killChildren, serveChild } from './support/child-host.js';
import { createQuery, RawStream, removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { FEED_PARTITION, ownerOf } from '../src/scale-out/partitions.js';
import { mulberry32 } from '../../../scripts/seeded-random.mjs';
import { adminQuery, freshSchema, type TestSchema } from './support/postgres.js';
import { describeWithBus, freshStream, TEST_NATS_URL } from './support/nats.js';

// Three real `eql serve` processes on one PostgreSQL database and one NATS JetStream stream (issue 14,
// point 5): 1,000 queries created through all three, a recording published into the bus in three
// parts, one host killed with SIGKILL in the middle of the second and started again. Every notification
// stored is compared with a single-process run of the same recording (the core engine in virtual time,
// fed the same observations): none missing, none twice. An SSE client on a host that survives gets
// every notification of its key exactly once. Waits are for states, never fixed sleeps.

const PARTITIONS = 8;
const ASSETS = ['BTC', 'ETH', 'SOL', 'DOGE'] as const;
const START: Record<(typeof ASSETS)[number], number> = { BTC: 60_000, ETH: 3_000, SOL: 150, DOGE: 0.2 };

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A recording: each asset a random walk, the assets interleaved, one tick every 2 s of feed time. */
function recording(start: number, ticks: number): Observation[] {
  const next = mulberry32(14);
  const prices = { ...START };
  const observations: Observation[] = [];
  for (let index = 0; index < ticks; index += 1) {
    const symbol = ASSETS[index % ASSETS.length]!;
    prices[symbol] = prices[symbol] * (1 + (next() - 0.5) * 0.02);
    observations.push({ at: start + index * 2_000, source: 'price', symbol, price: Number(prices[symbol].toPrecision(8)) });
  }
  return observations;
}

/** A query: a crossing of a threshold near the asset's start that re-arms (cooldown 1 s), or a level that fires once. */
function queryBody(index: number): Record<string, unknown> {
  const next = mulberry32(1_000 + index);
  const symbol = ASSETS[index % ASSETS.length]!;
  const threshold = Number((START[symbol] * (0.96 + next() * 0.08)).toPrecision(6));
  const kind = index % 3;
  const operator = kind === 0 ? 'crosses_above' : kind === 1 ? 'crosses_below' : '>';
  return {
    title: `q${index}`,
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator, value: threshold }] },
      actions: [{ stepId: 'tell', type: 'notify', params: { message: `${symbol} ${operator} ${threshold}` } }],
      expiresIn: '7d',
      ...(kind === 2 ? {} : { repeat: { cooldown: '1s' } }),
    },
  };
}

/** A clock for the reference run: the instant of the observation being fed (virtual time). */
class ManualClock implements SchedulerLike {
  at = 0;
  now(): number {
    return this.at;
  }
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    return asyncScheduler.schedule(work, delay, state);
  }
}

/** The triggers of a single-process run: the core engine fed the recording in order, each observation at its instant. */
function referenceRun(queries: Array<{ id: string; body: Record<string, unknown>; createdAt: number }>, observations: Observation[]): Set<string> {
  const clock = new ManualClock();
  const push = new PushSource();
  const engine = new Engine({ scheduler: clock, sources: [push] });
  const fired = new Set<string>();
  engine.events$.subscribe((event: EngineEvent) => {
    if (event.type === 'trigger') fired.add(`${event.queryId}#${event.triggerIndex}@${new Date(event.at).toISOString()}`);
  });
  clock.at = Math.max(...queries.map((query) => query.createdAt));
  for (const query of queries) engine.add({ queryId: query.id, request: query.body as never, createdAt: query.createdAt });
  for (const observation of observations) {
    clock.at = observation.at;
    push.push(observation);
  }
  engine.dispose();
  return fired;
}

interface Readiness {
  status: string;
  nodeId: string;
  queries: number;
  partitions: { owned: number[]; count: number };
}

async function ready(base: string): Promise<Readiness | undefined> {
  try {
    const response = await fetch(`${base}/ready`);
    return (await response.json()) as Readiness;
  } catch {
    return undefined;
  }
}

await describeWithBus('three hosts on PostgreSQL and NATS JetStream', () => {
  it(
    'run 1,000 queries over a recording published into the bus, one host killed with SIGKILL mid-run and restarted: every trigger of a single-process run once, and an SSE client on a survivor gets every notification once',
    // A bound against a hang only: on a 2-core machine loaded by other work, three starts, 1,000 creates and
    // the reading of 900 ticks by 1,000 queries took 4 minutes.
    { timeout: 600_000 },
    async () => {
      const schema: TestSchema = await freshSchema('bus_cluster');
      cleanups.push(() => schema.drop());
      const stream = freshStream('bus_cluster');
      cleanups.push(() => stream.drop());
      const dir = await mkdtemp(join(tmpdir(), 'eql-bus-cluster-'));
      cleanups.push(() => removeDir(dir));

      // Keys made in the store first (every host finds them there): 25 keys, 40 queries each, within the per-key rate limit.
      const box = SecretBox.fromKey(SECRET_KEY_HEX);
      const store = await PgHostStore.open(schema.url, { box });
      cleanups.push(() => store.close());
      const keys: string[] = [];
      for (let index = 0; index < 25; index += 1) keys.push((await createApiKey(store, box, { name: `k${index}`, plan: 'pro' })).key);

      const env = (nodeId: string): Record<string, string> => ({
        EQL_DATABASE_URL: schema.url,
        EQL_NATS_URL: TEST_NATS_URL,
        EQL_NATS_STREAM: stream.name,
        EQL_FEED: 'bus',
        EQL_SECRET_KEY: SECRET_KEY_HEX,
        EQL_NODE_ID: nodeId,
        EQL_PARTITIONS: String(PARTITIONS),
        EQL_LEASE_TTL_MS: '1500',
        EQL_PORT: '0',
        EQL_HOST: '127.0.0.1',
        EQL_DATA_DIR: join(dir, nodeId),
        EQL_MARKET_SEED: 'none',
        EQL_API_KEY: keys[0]!,
        EQL_LOG_LEVEL: 'warn',
      });
      const baseOf = (child: ChildHost): string => /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
      const hosts: Record<string, ChildHost> = {};
      reportStalledStep(hosts);
      for (const nodeId of ['eql-1', 'eql-2', 'eql-3']) hosts[nodeId] = await during(`${nodeId} to listen`, serveChild(env(nodeId)));
      const bases = () => Object.values(hosts).map(baseOf);
      const balanced = async (): Promise<boolean> => {
        const states = await Promise.all(bases().map(ready));
        const owned = states.flatMap((state) => state?.partitions.owned ?? []);
        return states.every((state) => state?.status === 'ready') && owned.length === PARTITIONS && new Set(owned).size === PARTITIONS;
      };
      await waitFor(balanced, 'the three hosts to share the partitions');

      // 1,000 queries, created round-robin through the three hosts.
      const queries: Array<{ id: string; body: Record<string, unknown>; createdAt: number; key: string }> = [];
      waitingFor = 'the 1,000 queries to be created';
      // Through the three hosts at once, one client each (a cluster serves its clients concurrently).
      const made = await Promise.all(
        bases().map(async (base, host) => {
          const mine: Array<[number, string]> = [];
          for (let index = host; index < 1_000; index += 3) mine.push([index, await createQuery(base, keys[index % keys.length]!, queryBody(index))]);
          return mine;
        }),
      );
      for (const [index, id] of made.flat().sort(([a], [b]) => a - b)) queries.push({ id, body: queryBody(index), createdAt: 0, key: keys[index % keys.length]! });
      waitingFor = undefined;
      const created = new Map((await adminQuery<{ id: string; created_at: string }>(`SELECT id, created_at FROM ${schema.name}.queries`)).map((row) => [row.id, Date.parse(row.created_at)]));
      for (const query of queries) query.createdAt = created.get(query.id)!;
      await waitFor(async () => (await Promise.all(bases().map(ready))).reduce((sum, state) => sum + (state?.queries ?? 0), 0) === 1_000, 'every query to run on its owner');

      // An SSE client of key 0 on eql-1, which survives.
      const survivor = baseOf(hosts['eql-1']!);
      const sse = await RawStream.open(`${survivor}/v2/auto/queries/stream`, { 'x-svc-api-key': keys[0]!, 'last-event-id': '0' });
      expect(sse.status).toBe(200);

      // The recording, published in three parts; eql-2 is killed during the second and started again after it.
      const observations = recording(Math.max(...queries.map((query) => query.createdAt)) + 1_000, 900);
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
      cleanups.push(() => bus.close());
      const publisher = new BusPublisher(bus);
      const items: Publication[] = observations.map((observation, index) => ({ observation, id: `recording:${index}` }));
      const positions = async (): Promise<number[]> => (await adminQuery<{ seq: string }>(`SELECT seq FROM ${schema.name}.partition_positions WHERE partition >= 0`)).map((row) => Number(row.seq));
      const allRead = (seq: number) => async () => {
        const saved = await positions();
        return saved.length === PARTITIONS && saved.every((position) => position >= seq);
      };

      const first = await during('the first part to be published', publisher.publish(items.slice(0, 300)));
      await waitFor(allRead(first.lastSeq), 'every partition to read the first part');
      let killed = false;
      const second = await during('the second part to be published', publisher.publish(items.slice(300, 600), {
        batchSize: 20,
        onProgress: (done) => {
          if (!killed && done >= 100) {
            killed = true;
            hosts['eql-2']!.process.kill('SIGKILL');
          }
        },
      }));
      await during('eql-2 to exit after its SIGKILL', hosts['eql-2']!.exit);
      await waitFor(allRead(second.lastSeq), 'the two survivors to take over and read the second part');
      hosts['eql-2'] = await during('eql-2 to listen again', serveChild(env('eql-2')));
      await waitFor(async () => (await balanced()) && (await ready(baseOf(hosts['eql-2']!)))!.partitions.owned.length > 0, 'eql-2 to take its partitions back');
      const third = await during('the third part to be published', publisher.publish(items.slice(600)));
      await waitFor(allRead(third.lastSeq), 'every partition to read the third part');

      // Every trigger of the single-process run, once; nothing else.
      const expected = referenceRun(queries, observations);
      expect(expected.size).toBeGreaterThan(300);
      const rows = await adminQuery<{ query_id: string; trigger_index: string; body: string }>(`SELECT query_id, trigger_index, body FROM ${schema.name}.notifications ORDER BY id`);
      const stored = rows.map((row) => `${row.query_id}#${row.trigger_index}@${(JSON.parse(row.body) as { data: { observedAt: string } }).data.observedAt}`);
      const duplicates = stored.filter((entry, index) => stored.indexOf(entry) !== index);
      const missing = [...expected].filter((entry) => !stored.includes(entry));
      const unexpected = stored.filter((entry) => !expected.has(entry));
      expect({ duplicates: duplicates.length, missing: missing.length, unexpected: unexpected.length, examples: [...missing.slice(0, 3), ...unexpected.slice(0, 3)] }).toEqual({ duplicates: 0, missing: 0, unexpected: 0, examples: [] });
      const executions = await adminQuery<{ n: string }>(`SELECT count(*) AS n FROM ${schema.name}.executions GROUP BY query_id, trigger_index, step_id HAVING count(*) > 1`);
      expect(executions).toEqual([]);

      // The SSE client of key 0 got each of its key's notifications once.
      const ofKey0 = new Set(queries.filter((query) => query.key === keys[0]).map((query) => query.id));
      const wanted = [...expected].filter((entry) => ofKey0.has(entry.split('#')[0]!)).length;
      const got = () => sse.named('notification:new').map((frame) => frame.id);
      await during(`${wanted} notifications on the stream`, sse.waitFor(() => got().length >= wanted, `${wanted} notifications on the stream`));
      expect(got()).toHaveLength(wanted);
      expect(new Set(got()).size).toBe(wanted);
      sse.close();
    },
  );
});

await describeWithBus('the replay feed on the market bus', () => {
  it('is read by one host at a time into the stream; when that host leaves, another goes on from the stream\'s last message: every instant of the timeline once, in order', { timeout: 120_000 }, async () => {
    const schema = await freshSchema('bus_feed');
    cleanups.push(() => schema.drop());
    const stream = freshStream('bus_feed');
    cleanups.push(() => stream.drop());
    // 20 ticks a minute apart, played 600 times faster: one every 100 ms, a lap every 2 s.
    const lines = Array.from({ length: 20 }, (_, index) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, index)).toISOString(), source: 'price', symbol: 'BTC', price: 100 + index }));
    const recording = parseRecording(`${lines.join('\n')}\n`);
    const member = async (nodeId: string): Promise<Host> => {
      const dir = await mkdtemp(join(tmpdir(), 'eql-bus-feed-'));
      cleanups.push(() => removeDir(dir));
      const host = await buildServer({
        config: { dataDir: dir, databaseUrl: schema.url, natsUrl: TEST_NATS_URL, natsStream: stream.name, secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 4, leaseTtlMs: 600, replaySpeed: 600 },
        logger: false,
        engine: { recording },
      });
      return host;
    };
    const a = await member('feed-a');
    const b = await member('feed-b');
    const leaderOf = () => [a, b].filter((host) => host.context.runner.readiness().feedLeader === true);
    let closed: Host | undefined;
    try {
      await waitFor(() => Promise.resolve(leaderOf().length === 1), 'one host to lead the feed');
      const leader = leaderOf()[0]!;
      const follower = leader === a ? b : a;
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
      cleanups.push(() => bus.close());
      const seen: Array<{ seq: number; at: number }> = [];
      const reading = await bus.read(1, ({ seq, observation }) => {
        seen.push({ seq, at: observation.at });
        return undefined;
      });
      await waitFor(() => Promise.resolve(seen.length >= 10), 'ten observations from the first leader');
      await leader.close();
      closed = leader;
      const before = seen.length;
      await waitFor(() => Promise.resolve(follower.context.runner.readiness().feedLeader === true && seen.length >= before + 10), 'the other host to lead the feed and publish');
      await reading.stop();
      // One message per instant of the timeline, 100 ms apart: nothing published twice, no instant skipped.
      const steps = seen.slice(1).map((entry, index) => entry.at - seen[index]!.at);
      expect(new Set(steps)).toEqual(new Set([100]));
      expect(seen.map((entry) => entry.seq)).toEqual(seen.map((_, index) => seen[0]!.seq + index));
    } finally {
      for (const host of [a, b]) if (host !== closed) await host.close();
    }
  });
});

await describeWithBus('signals between the hosts of a bus', () => {
  it('a query created through a host that does not run it starts on its owner at once, and its notification reaches a stream on the first host at once, neither waiting for a beat or a poll', { timeout: 120_000 }, async () => {
    const schema = await freshSchema('bus_signal');
    cleanups.push(() => schema.drop());
    const stream = freshStream('bus_signal');
    cleanups.push(() => stream.drop());
    const member = async (nodeId: string): Promise<{ host: Host; base: string }> => {
      const dir = await mkdtemp(join(tmpdir(), 'eql-bus-signal-'));
      cleanups.push(() => removeDir(dir));
      const host = await buildServer({
        config: { dataDir: dir, databaseUrl: schema.url, natsUrl: TEST_NATS_URL, natsStream: stream.name, feed: 'bus', secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 4, leaseTtlMs: 3_000 },
        logger: false,
        // The streams would look at the store once an hour: what they get comes from the signal.
        sse: { pollStoreMs: 3_600_000 },
      });
      await host.app.listen({ host: '127.0.0.1', port: 0 });
      return { host, base: `http://127.0.0.1:${(host.app.server.address() as { port: number }).port}` };
    };
    const a = await member('signal-a');
    const b = await member('signal-b');
    try {
      const owned = (m: { host: Host }) => m.host.context.runner.readiness().partitions?.owned ?? [];
      await waitFor(() => Promise.resolve(owned(a).length + owned(b).length === 4 && owned(a).length > 0 && owned(b).length > 0), 'both hosts to hold partitions');
      // GET /ready tells the bus: its stream, the connection, and the position of each partition held.
      const readyA = (await (await fetch(`${a.base}/ready`)).json()) as { status: string; bus: { stream: string; connected: boolean; positions: Record<string, { handled: number; saved: number; catchingUp: boolean }> } };
      expect(readyA).toMatchObject({ status: 'ready', bus: { stream: stream.name, connected: true } });
      expect(Object.keys(readyA.bus.positions).map(Number).sort()).toEqual(owned(a));
      // /metrics says the same: the partitions held, the bus connected, each partition's position.
      const scrape = await (await fetch(`${a.base}/metrics`)).text();
      expect(scrape).toContain(`eql_partitions_owned ${owned(a).length}`);
      for (const partition of owned(a)) {
        expect(scrape).toContain(`eql_partition_owned{partition="${partition}"} 1`);
        expect(scrape).toMatch(new RegExp(`eql_bus_partition_handled_sequence\\{partition="${partition}"\\} \\d+`));
        expect(scrape).toMatch(new RegExp(`eql_bus_partition_backlog_sequences\\{partition="${partition}"\\} \\d+`));
      }
      expect(scrape).toContain('eql_bus_connected 1');
      expect(scrape).toMatch(/eql_feed_leader [01]/);
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'signal', plan: 'pro' })).key;
      // b beats no more: what it starts from now on, it starts on a signal.
      const partitioned = b.host.context.runner as unknown as { beat(): Promise<void> };
      partitioned.beat = () => Promise.resolve();
      const { partitionOf } = await import('../src/scale-out/partitions.js');
      let queryId: string | undefined;
      for (let index = 0; queryId === undefined; index += 1) {
        const id = await createQuery(a.base, key, { title: `s${index}`, query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'above' } }], expiresIn: '1h' } });
        if (owned(b).includes(partitionOf(id, 4))) queryId = id;
      }
      await waitFor(() => Promise.resolve(b.host.context.runner.inspect(queryId) !== undefined), 'b to run the query created through a');
      const sse = await RawStream.open(`${a.base}/v2/auto/queries/stream`, { 'x-svc-api-key': key });
      expect(sse.status).toBe(200);
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
      cleanups.push(() => bus.close());
      await new BusPublisher(bus).publish([{ observation: { at: Date.now(), source: 'price', symbol: 'BTC', price: 150 }, id: 'tick-1' }]);
      await sse.waitFor(() => sse.named('notification:new').some((frame) => frame.data?.includes(queryId) === true), 'the notification stored by b on the stream of a');
      sse.close();
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });
});

await describeWithBus('a live feed on the market bus', () => {
  /** A host of a live-feed cluster: `venue` is the one push source every host is given; only the feed's leader may subscribe to it. */
  const member = async (schema: TestSchema, stream: string, venue: PushSource, nodeId: string): Promise<{ host: Host; base: string }> => {
    const dir = await mkdtemp(join(tmpdir(), 'eql-bus-live-'));
    cleanups.push(() => removeDir(dir));
    const host = await buildServer({
      config: { dataDir: dir, databaseUrl: schema.url, natsUrl: TEST_NATS_URL, natsStream: stream, secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 4, leaseTtlMs: 900 },
      logger: false,
      engine: { sources: [venue] },
    });
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    return { host, base: `http://127.0.0.1:${(host.app.server.address() as { port: number }).port}` };
  };
  const ethAbove100 = { title: 'live', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: '>', value: 100 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'ETH above 100' } }], expiresIn: '1h' } };
  const leads = (m: { host: Host }): boolean => m.host.context.runner.readiness().feedLeader === true;

  it('is read by the feed\'s leader alone, for the topics of the active queries, and published once: the query fires once on its owner', { timeout: 120_000 }, async () => {
    const schema = await freshSchema('bus_live');
    cleanups.push(() => schema.drop());
    const stream = freshStream('bus_live');
    cleanups.push(() => stream.drop());
    const venue = new PushSource();
    const a = await member(schema, stream.name, venue, 'live-a');
    const b = await member(schema, stream.name, venue, 'live-b');
    try {
      await waitFor(() => Promise.resolve([a, b].filter(leads).length === 1), 'one feed leader');
      expect(venue.observed).toBe(false);
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'live', plan: 'pro' })).key;
      const queryId = await createQuery(b.base, key, ethAbove100);
      await waitFor(() => Promise.resolve(venue.observed), 'the leader to subscribe to ETH');
      const running = () => [a, b].some((m) => m.host.context.runner.inspect(queryId) !== undefined);
      await waitFor(() => Promise.resolve(running()), 'the owner to run the query');
      venue.push({ at: Date.now(), source: 'price', symbol: 'ETH', price: 150 });
      const notifications = () => adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema.name}.notifications WHERE query_id = $1`, [queryId]);
      await waitFor(async () => (await notifications())[0]!.n === 1, 'the notification');
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
      cleanups.push(() => bus.close());
      expect((await bus.last())?.seq).toBe(1);
      expect((await bus.at(1))?.observation).toMatchObject({ source: 'price', symbol: 'ETH', price: 150 });
    } finally {
      await a.host.close();
      await b.host.close();
    }
  });

  it('a leader too busy to beat loses the feed to the other host and takes it back: each, subscribing anew, is handed the last tick again, which the stream keeps once', { timeout: 120_000 }, async () => {
    const schema = await freshSchema('bus_relead');
    cleanups.push(() => schema.drop());
    const stream = freshStream('bus_relead');
    cleanups.push(() => stream.drop());
    const venue = new PushSource();
    reportStalledStep({});
    const a = await member(schema, stream.name, venue, 'relead-a');
    const b = await member(schema, stream.name, venue, 'relead-b');
    // Every publication of the hosts, with what the stream answered.
    const acks: Array<{ id: string; duplicate: boolean }> = [];
    const publish = Object.getOwnPropertyDescriptor(MarketBus.prototype, 'publish')!.value as (this: MarketBus, observation: Observation, id: string) => ReturnType<MarketBus['publish']>;
    vi.spyOn(MarketBus.prototype, 'publish').mockImplementation(async function (this: MarketBus, observation: Observation, id: string) {
      const ack = await publish.call(this, observation, id);
      if (ack) acks.push({ id, duplicate: ack.duplicate });
      return ack;
    });
    const blocker = new pg.Client({ connectionString: schema.url });
    await blocker.connect();
    try {
      // The leader rendezvous hashing gives the feed to, once both hosts beat.
      const leader = ownerOf(FEED_PARTITION, ['relead-a', 'relead-b']) === 'relead-a' ? a : b;
      const other = leader === a ? b : a;
      await waitFor(() => Promise.resolve(leads(leader) && !leads(other)), 'the feed\'s leader');
      const key = (await createApiKey(a.host.context.store, a.host.context.box, { name: 'live', plan: 'pro' })).key;
      // It stays active after it fires, so each leader subscribes to ETH.
      const queryId = await createQuery(b.base, key, { ...ethAbove100, query: { ...ethAbove100.query, repeat: { cooldown: '1m' } } });
      await waitFor(() => Promise.resolve(venue.observed && [a, b].some((m) => m.host.context.runner.inspect(queryId) !== undefined)), 'the leader to subscribe to ETH and the owner to run the query');
      venue.push({ at: Date.now(), source: 'price', symbol: 'ETH', price: 150 });
      const notifications = async () => (await adminQuery<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema.name}.notifications WHERE query_id = $1`, [queryId]))[0]!.n;
      await waitFor(async () => acks.length === 1 && (await notifications()) === 1, 'the tick to be published and the query to fire');
      // The leader's heartbeat waits on a lock, as a host too busy to beat: after the TTL the other host leads.
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM cluster_nodes WHERE node_id = $1 FOR UPDATE', [leader.host.context.config.nodeId]);
      await waitFor(() => Promise.resolve(leads(other) && acks.length >= 2), 'the other host to lead the feed and publish the tick it was handed');
      await blocker.query('COMMIT');
      await waitFor(() => Promise.resolve(leads(leader) && !leads(other) && acks.length >= 3), 'the first host to lead the feed again and publish the tick it was handed');
      expect(acks.map((ack) => ack.id)).toEqual([acks[0]!.id, acks[0]!.id, acks[0]!.id]);
      expect(acks.map((ack) => ack.duplicate)).toEqual([false, true, true]);
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
      cleanups.push(() => bus.close());
      expect((await bus.last())?.seq).toBe(1);
      expect(await notifications()).toBe(1);
    } finally {
      vi.restoreAllMocks();
      await blocker.end();
      await a.host.close();
      await b.host.close();
    }
  });
});

/** Polls an asynchronous state until it holds (the test's timeout bounds the wait). */
/** What the running test waits for now: a test that times out says it, with the end of each host's output. */
let waitingFor: string | undefined;

/** Waits for a state, polled every 100 ms (the test's own timeout bounds it: see `reportStalledStep`). */
async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  waitingFor = what;
  for (;;) {
    if (await check().catch(() => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  waitingFor = undefined;
}

/** Awaits a step that is not a polled state (a child's start or exit, a publication), named like a wait. */
async function during<T>(what: string, step: Promise<T>): Promise<T> {
  waitingFor = what;
  const value = await step;
  waitingFor = undefined;
  return value;
}

/** When the test fails (a timeout included), the step it was waiting for and what each host printed last. */
function reportStalledStep(hosts: Record<string, ChildHost>): void {
  onTestFailed(() => {
    const outputs = Object.entries(hosts).map(([nodeId, host]) => `--- ${nodeId} (last 2,000 characters):\n${host.output().slice(-2_000)}`);
    console.error(`the test was waiting for: ${waitingFor ?? 'nothing (it failed between waits)'}\n${outputs.join('\n')}`);
  });
}
