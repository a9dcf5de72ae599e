import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, createApiKey, type Host } from '../src/index.js';
import type { QueryRecord } from '../src/store/records.js';
import { removeDir } from './support/harness.js';
import { call, json, notifyQuery, SECRET_KEY_HEX, testHost, type TestHost } from './support/host.js';
import { describeWithPostgres, freshSchema, type TestSchema } from './support/postgres.js';

// Retries of one create sent at the same time (a client that times out and retries at once): the
// store keeps one query, every other copy replays its answer; none is a 500, and the key is charged once.
//
// The branch that matters is the one where two copies both looked the key up, found nothing, and both
// tried to store: the store refuses the second (unique key_id + idempotency_key) and that copy must
// replay the first answer without charging. Requests sent "at once" reach it only by luck of timing, so
// `collideTwoCopies` holds them at the store with barriers: the first insert waits until the other
// copy has looked the key up (and found nothing), and the second insert waits until the first is
// stored. Then it counts the inserts refused, so a test that did not reach the branch fails.

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const DAY = new Date().toISOString().slice(0, 10);

/** Validates a body with this key (the host creates only a body validated first). */
async function validated(host: Host, key: string, body: Record<string, unknown>): Promise<void> {
  expect((await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).statusCode).toBe(200);
}

/**
 * Two creates with one Idempotency-Key (the same body, or two bodies), made to collide in the store as
 * described above. Returns both answers, and how often the key was looked up, stored and refused.
 */
async function collideTwoCopies(host: Host, key: string, bodies: [Record<string, unknown>, Record<string, unknown>], idempotencyKey: string) {
  const store = host.context.store;
  const lookUp = store.queryByIdempotencyKey.bind(store);
  const insert = store.insertQuery.bind(store);
  const secondLookedUp = deferred();
  const firstStored = deferred();
  let lookups = 0;
  let inserts = 0;
  let refused = 0;
  vi.spyOn(store, 'queryByIdempotencyKey').mockImplementation(async (keyId: number, idempotency: string) => {
    const found = await lookUp(keyId, idempotency);
    lookups += 1;
    if (lookups === 2) secondLookedUp.resolve();
    return found;
  });
  vi.spyOn(store, 'insertQuery').mockImplementation(async (record: QueryRecord, idempotency?: string) => {
    inserts += 1;
    if (inserts === 1) {
      await secondLookedUp.promise;
      await insert(record, idempotency);
      firstStored.resolve();
      return;
    }
    await firstStored.promise;
    try {
      await insert(record, idempotency);
    } catch (error) {
      refused += 1;
      throw error;
    }
  });
  const send = (body: Record<string, unknown>) => call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body, headers: { 'idempotency-key': idempotencyKey } });
  const answers = await Promise.all(bodies.map(send));
  vi.restoreAllMocks();
  return { answers, lookups, inserts, refused };
}

/** The contract, on whichever store the host has. */
function collisionContract(hostOf: () => Host, newKey: () => Promise<string>): void {
  it('two copies that both found no earlier query: one stores and is charged, the other replays it uncharged', async () => {
    const host = hostOf();
    const key = await newKey();
    const body = notifyQuery(123_456);
    await validated(host, key, body);
    const { answers, lookups, inserts, refused } = await collideTwoCopies(host, key, [body, body], 'collide');

    // The branch was reached: both copies looked up and found nothing, both tried to store, one was refused
    // and looked up again to replay.
    expect({ lookups, inserts, refused }).toEqual({ lookups: 3, inserts: 2, refused: 1 });
    const [created, replayed] = [...answers].sort((a, b) => b.statusCode - a.statusCode);
    expect([created!.statusCode, replayed!.statusCode]).toEqual([201, 200]);
    expect(json(replayed!)).toEqual(json(created!));
    const credits = json(created!).estimatedCredits as number;
    expect(credits).toBeGreaterThan(0);
    expect(created!.headers['x-svc-credits-used']).toBe(String(credits));
    expect(replayed!.headers['x-svc-credits-used']).toBe('0');

    // One query, one line in the credit ledger.
    const list = json(await call(host.app, { url: '/v2/auto/queries', key }));
    expect((list.queries as unknown[]).length).toBe(1);
    const status = json(await call(host.app, { url: '/v2/key-status', key }));
    expect((status.data as { creditsUsed: unknown }).creditsUsed).toEqual({ daily: credits, monthly: credits, total: credits });
  });

  it('a copy with another body in that branch is a 409, uncharged', async () => {
    const host = hostOf();
    const key = await newKey();
    const body = notifyQuery(234_567);
    const other = notifyQuery(345_678);
    await validated(host, key, body);
    await validated(host, key, other);
    const { answers, lookups, inserts, refused } = await collideTwoCopies(host, key, [body, other], 'collide-other');
    expect({ lookups, inserts, refused }).toEqual({ lookups: 3, inserts: 2, refused: 1 });
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([201, 409]);
    const created = answers.find((answer) => answer.statusCode === 201)!;
    const credits = json(created).estimatedCredits as number;
    const status = json(await call(host.app, { url: '/v2/key-status', key }));
    expect((status.data as { creditsUsed: { total: number } }).creditsUsed.total).toBe(credits);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('one Idempotency-Key, sent several times at once (SQLite)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await testHost();
  });
  afterAll(() => host.close());

  it('creates one query: one 201, the others 200 with the same answer, one charge', async () => {
    const key = await host.newKey();
    const body = notifyQuery(654_321);
    expect((await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).statusCode).toBe(200);
    const copies = await Promise.all(
      Array.from({ length: 6 }, () => call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body, headers: { 'idempotency-key': 'same-retry' } })),
    );
    const statuses = copies.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
    const ids = new Set(copies.map((response) => json(response).queryId));
    expect(ids.size).toBe(1);
    const list = json(await call(host.app, { url: '/v2/auto/queries', key }));
    expect((list.queries as unknown[]).length).toBe(1);
    const credits = json(copies.find((response) => response.statusCode === 201)!).estimatedCredits as number;
    expect(host.store.creditsUsed(key.record.id, DAY).total).toBe(credits);
  });

  collisionContract(
    () => host,
    async () => (await host.newKey()).key,
  );
});

const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');

await describeWithPostgres('one Idempotency-Key, sent several times at once (PostgreSQL)', () => {
  let schema: TestSchema;
  let dataDir: string;
  let host: Host;
  beforeAll(async () => {
    schema = await freshSchema('idempotency');
    dataDir = await mkdtemp(join(tmpdir(), 'eql-idempotency-'));
    host = await buildServer({
      config: { dataDir, databaseUrl: schema.url, secretKey: SECRET_KEY_HEX, marketSeed: false },
      logger: false,
      engine: { sources: [new PushSource()], recording: TINY_RECORDING },
    });
  });
  afterAll(async () => {
    await host.close();
    await schema.drop();
    await removeDir(dataDir);
  });

  collisionContract(
    () => host,
    async () => (await createApiKey(host.context.store, host.context.box, { name: 'race', plan: 'pro' })).key,
  );
});
