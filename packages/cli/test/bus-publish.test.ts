import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, MarketBus } from '@eql/server';
import { freshSchema } from '../../server/test/support/postgres.js';
import { SECRET_KEY_HEX } from '../../server/test/support/host.js';
import { describeWithBus, freshStream, TEST_NATS_URL } from '../../server/test/support/nats.js';

// `eql bus publish` against the real NATS JetStream server: a recording goes into the stream once, in
// order; run again with --keep-times it publishes nothing twice; played from now at a speed, each
// observation is stamped with the instant it plays at.

const BIN = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const RECORDING = fileURLToPath(new URL('../../../examples/recording.jsonl', import.meta.url));
const drops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

function eql(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('EQL_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...env, EQL_NATS_URL: TEST_NATS_URL, ...extraEnv }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function readAll(stream: string, count: number): Promise<Array<{ seq: number; at: number; price: number }>> {
  const bus = await MarketBus.connect(TEST_NATS_URL, { stream });
  const seen: Array<{ seq: number; at: number; price: number }> = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const reading = await bus.read(1, ({ seq, observation }) => {
    if (observation.source === 'price') seen.push({ seq, at: observation.at, price: observation.price });
    if (seen.length >= count) done();
    return undefined;
  });
  await all;
  await reading.stop();
  await bus.close();
  return seen;
}

await describeWithBus('eql bus publish', () => {
  it('publishes a recording once, in order, with its recorded instants; a second run stores nothing new', { timeout: 60_000 }, async () => {
    const stream = freshStream('cli_keep');
    drops.push(() => stream.drop());
    const first = await eql(['bus', 'publish', RECORDING, '--stream', stream.name, '--keep-times', '--speed', 'max']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`published 21 observations to ${stream.name} (0 already there, last sequence 21)\n`);
    const again = await eql(['bus', 'publish', RECORDING, '--stream', stream.name, '--keep-times', '--speed', 'max', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ stream: stream.name, published: 0, duplicates: 21, skipped: 0, lastSeq: 21 });
    const seen = await readAll(stream.name, 21);
    expect(seen.map((entry) => entry.seq)).toEqual(Array.from({ length: 21 }, (_, index) => index + 1));
    expect(seen[0]).toMatchObject({ at: Date.parse('2026-01-06T15:50:00Z'), price: 104499.62 });
  });

  it('plays from now at a speed, each observation stamped with the instant it plays at', { timeout: 60_000 }, async () => {
    const stream = freshStream('cli_paced');
    drops.push(() => stream.drop());
    const before = Date.now();
    // 20 recorded minutes at 1,200 times real time: one second.
    const run = await eql(['bus', 'publish', RECORDING, '--stream', stream.name, '--speed', '1200']);
    expect(run.code, run.stderr).toBe(0);
    const seen = await readAll(stream.name, 21);
    expect(seen[0]!.at).toBeGreaterThanOrEqual(before);
    // A recorded minute apart: 50 ms apart when played.
    expect(new Set(seen.slice(1).map((entry, index) => entry.at - seen[index]!.at))).toEqual(new Set([50]));
  });

  it('stamps whole ms at a speed whose steps are fractions of one (what the hosts read: a fraction they skip)', { timeout: 60_000 }, async () => {
    const stream = freshStream('cli_fraction');
    drops.push(() => stream.drop());
    // A recorded minute is 60,000 / 7,000 = 8.57 ms when played.
    const run = await eql(['bus', 'publish', RECORDING, '--stream', stream.name, '--speed', '7000']);
    expect(run.code, run.stderr).toBe(0);
    const seen = await readAll(stream.name, 21);
    expect(seen.filter((entry) => !Number.isInteger(entry.at))).toEqual([]);
  });

  it('refuses, before sending anything, a recording or a speed that gives what the hosts would skip (exit 2)', { timeout: 60_000 }, async () => {
    const stream = freshStream('cli_refused');
    drops.push(() => stream.drop());
    // Twenty recorded minutes at 1e-10 times real time: far beyond the times a Date holds.
    const slow = await eql(['bus', 'publish', RECORDING, '--stream', stream.name, '--speed', '1e-10']);
    expect(slow.code).toBe(2);
    expect(slow.stderr).toContain(`${RECORDING}: observation `);
    expect(slow.stderr).toMatch(/observation \d+ played at --speed 1e-10 is not one the bus carries: at must be an integer epoch ms time, not \d+\n$/);
    const dir = mkdtempSync(join(tmpdir(), 'eql-cli-refused-'));
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, '{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n{"at":"2026-01-05T00:00:01Z","source":"price","symbol":7,"price":1}\n');
    const numeric = await eql(['bus', 'publish', file, '--stream', stream.name, '--keep-times']);
    expect(numeric.code).toBe(2);
    expect(numeric.stderr).toContain(`${file}: line 2: symbol must be a string, not 7`);
    const bus = await MarketBus.connect(TEST_NATS_URL, { stream: stream.name });
    try {
      expect(await bus.last()).toBeUndefined();
    } finally {
      await bus.close();
    }
  });

  it('says what is wrong: no file, a malformed speed (exit 2)', async () => {
    expect((await eql(['bus', 'publish', 'no-such.jsonl'])).code).toBe(2);
    expect((await eql(['bus', 'publish', RECORDING, '--speed', 'fast'])).stderr).toContain('--speed is a positive number or max');
  });

  it('eql bus status shows the stream, the hosts, the feed leader and each partition\'s host and lag', { timeout: 60_000 }, async () => {
    const schema = await freshSchema('cli_bus_status');
    const stream = freshStream('cli_status');
    drops.push(() => schema.drop(), () => stream.drop());
    const host = await buildServer({
      config: { dataDir: mkdtempSync(join(tmpdir(), 'eql-cli-status-')), databaseUrl: schema.url, natsUrl: TEST_NATS_URL, natsStream: stream.name, feed: 'bus', secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId: 'status-a', partitions: 2, leaseTtlMs: 900 },
      logger: false,
    });
    try {
      const env = { EQL_DATABASE_URL: schema.url, EQL_NATS_STREAM: stream.name };
      await eql(['bus', 'publish', RECORDING, '--keep-times', '--speed', 'max'], env);
      // The host holds both partitions and has read the 21 messages, and its recorder wrote them to the history.
      let status: { stream: { lastSeq: number }; hosts: Array<{ nodeId: string; live: boolean }>; feed: { leader: string | null; historyUpTo: number | null }; partitions: Array<{ host: string | null; behind: number | null }> };
      for (;;) {
        const run = await eql(['bus', 'status', '--json'], env);
        expect(run.code, run.stderr).toBe(0);
        status = JSON.parse(run.stdout) as typeof status;
        if (status.feed.historyUpTo === 21 && status.partitions.every((partition) => partition.behind === 0)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status.stream.lastSeq).toBe(21);
      expect(status.hosts).toMatchObject([{ nodeId: 'status-a', live: true }]);
      expect(status.feed.leader).toBe('status-a');
      expect(status.partitions).toMatchObject([{ host: 'status-a', behind: 0 }, { host: 'status-a', behind: 0 }]);
      const text = await eql(['bus', 'status'], env);
      expect(text.stdout).toContain(`stream ${stream.name}: last message 21`);
      expect(text.stdout).toMatch(/^PARTITION +HOST +READ UP TO +BEHIND$/m);
    } finally {
      await host.close();
    }
    expect((await eql(['bus', 'status'], { EQL_NATS_STREAM: stream.name })).stderr).toContain('no database');
  });
});
