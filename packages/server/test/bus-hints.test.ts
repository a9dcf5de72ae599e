import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, createApiKey, type Host, SecretBox } from '../src/index.js';
import { BusPublisher } from '../src/scale-out/bus-publisher.js';
import { MarketBus } from '../src/scale-out/market-bus.js';
import { partitionOf } from '../src/scale-out/partitions.js';
import { killChildren, serveChild } from './support/child-host.js';
import { createQuery, RawStream, removeDir, until } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';
import { describeWithNatsServer, startNatsServer, type TestNatsServer } from './support/nats-server.js';
import { describeWithPostgres, freshSchema } from './support/postgres.js';

// The hints between the hosts of a bus (issue 45, finding 3): sealed with a key only the hosts derive,
// so that a subscriber on `>` learns no query id or key id and a hint published by anyone else is
// dropped unread; and the nats-server authorization of docs/scale-out.md, run as written: two hosts
// and a price publisher on it, each able to do what its role needs and no more.

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  killChildren();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

async function server(config: string, options?: Parameters<typeof startNatsServer>[1]): Promise<TestNatsServer> {
  const started = await startNatsServer(config, options);
  cleanups.push(() => started.stop());
  return started;
}

/** Every message a connection sees on `>`, as subject and text. */
function sniff(connection: NatsConnection): Array<{ subject: string; text: string }> {
  const seen: Array<{ subject: string; text: string }> = [];
  connection.subscribe('>', { callback: (error, message) => void (error ? undefined : seen.push({ subject: message.subject, text: message.string() })) });
  return seen;
}

const HINT_KEY = SecretBox.fromKey(SECRET_KEY_HEX).derive('eql market bus hints');

describeWithNatsServer('the hints of a market bus', () => {
  it('reach the other buses of the same key, sealed: the subject\'s readers see no id, and what another key or anyone else publishes there is dropped unread', { timeout: 60_000 }, async () => {
    const nats = await server('');
    const open = async (name: string, hints: SecretBox, warnings: string[] = []) => {
      const bus = await MarketBus.connect(nats.url, { name, hints, warn: (message) => warnings.push(message) });
      cleanups.push(() => bus.close());
      return bus;
    };
    const sniffer = await connect({ servers: nats.url });
    cleanups.push(() => sniffer.close());
    const seen = sniff(sniffer);
    const warnings: string[] = [];
    const a = await open('host-a', HINT_KEY);
    const b = await open('host-b', HINT_KEY, warnings);
    const stranger = await open('stranger', SecretBox.fromKey(randomBytes(32).toString('hex')).derive('eql market bus hints'));
    const heardByA: unknown[] = [];
    const heardByB: unknown[] = [];
    a.onSignal('query', (data) => heardByA.push(data));
    b.onSignal('query', (data) => heardByB.push(data));
    b.onSignal('notification', (data) => heardByB.push(data));
    await sniffer.flush();

    const queryId = `q_${randomBytes(8).toString('hex')}`;
    stranger.signal('query', { queryId: 'q_from_a_stranger' });
    sniffer.publish('eql-market-signal.query', JSON.stringify({ queryId: 'q_forged', from: 'someone' }));
    sniffer.publish('eql-market-signal.query', 'x'.repeat(100_000));
    // Flushed: the server has handed these to b before it gets the hints of a.
    await stranger.close();
    await sniffer.flush();
    a.signal('query', { queryId });
    a.signal('notification', { keyId: 73_519 });
    await until(() => heardByB.length === 2, 'b to hear the two hints of a');
    await a.close();
    await b.close();
    expect(heardByB).toEqual([{ queryId }, { keyId: 73_519 }]);
    expect(heardByA, 'a bus does not hear its own hints').toEqual([]);
    expect(warnings, 'told once, however many hints do not open').toEqual([expect.stringContaining("market bus: a hint did not open with this host's key")]);

    // Everything on the server but what the sniffer itself sent.
    const others = seen.filter((message) => !message.text.includes('q_forged') && message.text.length < 4_096);
    const ours = others.filter((message) => message.subject.startsWith('eql-market-signal.'));
    expect(ours.map((message) => message.subject).sort()).toEqual(['eql-market-signal.notification', 'eql-market-signal.query', 'eql-market-signal.query']);
    for (const message of others) {
      expect(message.text).not.toContain(queryId);
      expect(message.text).not.toContain('73519');
      expect(message.text).not.toMatch(/queryId|keyId/);
    }
    // What the sniffer saw was the hints, sealed: the hosts' key opens them.
    const opened = ours.flatMap((message) => {
      try {
        return [JSON.parse(HINT_KEY.open(message.text)) as unknown];
      } catch {
        return [];
      }
    });
    expect(opened).toEqual([
      { kind: 'query', from: 'host-a', data: { queryId } },
      { kind: 'notification', from: 'host-a', data: { keyId: 73_519 } },
    ]);
  });
});

/** The nats-server authorization example of docs/scale-out.md, as written there. */
function documentedAuthorization(): string {
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/scale-out.md', import.meta.url)), 'utf8');
  const block = /```conf\n(authorization \{[\s\S]*?\n\})\n```/.exec(doc);
  if (!block?.[1]) throw new Error('docs/scale-out.md has no ```conf block with the authorization example');
  return block[1];
}

await describeWithPostgres('hosts and a publisher on the nats-server authorization of docs/scale-out.md', () => {
  describeWithNatsServer('with the server', () => {
    it('lets the hosts read the stream and send each other hints, and the publisher publish prices only; a subscriber on > learns no query id or key id', { timeout: 120_000 }, async () => {
      // Passwords that start with a digit: nats-server reads a variable's value as configuration text, so
      // the variables hold them quoted, as docs/scale-out.md says.
      const passwords = { EQL_HOST_PASSWORD: `7${randomBytes(12).toString('hex')}`, EQL_PUBLISHER_PASSWORD: `0${randomBytes(12).toString('hex')}` };
      const env = Object.fromEntries(Object.entries(passwords).map(([name, password]) => [name, JSON.stringify(password)]));
      // A user with every permission, to watch `>`: what a tenant given a bus account, or anyone on an open server, could read.
      const config = documentedAuthorization().replace('users = [', 'users = [\n    { user: watcher, password: watcher-pw }');
      const nats = await server(config, { env });
      const watcher = await connect({ servers: nats.url, user: 'watcher', pass: 'watcher-pw' });
      cleanups.push(() => watcher.close());
      const seen = sniff(watcher);
      await watcher.flush();

      const schema = await freshSchema('bus_hints');
      cleanups.push(() => schema.drop());
      const logs: string[] = [];
      const member = async (nodeId: string): Promise<{ host: Host; base: string }> => {
        const dir = await mkdtemp(join(tmpdir(), 'eql-bus-hints-'));
        cleanups.push(() => removeDir(dir));
        const host = await buildServer({
          config: { dataDir: dir, databaseUrl: schema.url, natsUrl: nats.url, natsAuth: { user: 'eql-host', password: passwords.EQL_HOST_PASSWORD }, feed: 'bus', secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId, partitions: 4, leaseTtlMs: 3_000 },
          logger: { level: 'warn', stream: { write: (line: string) => void logs.push(line) } },
          // The streams would look at the store once an hour: what they get comes from the hint.
          sse: { pollStoreMs: 3_600_000 },
        });
        cleanups.push(() => host.close());
        await host.app.listen({ host: '127.0.0.1', port: 0 });
        return { host, base: `http://127.0.0.1:${(host.app.server.address() as { port: number }).port}` };
      };
      const a = await member('hints-a');
      const b = await member('hints-b');
      const owned = (m: { host: Host }) => m.host.context.runner.readiness().partitions?.owned ?? [];
      await until(() => owned(a).length + owned(b).length === 4 && owned(a).length > 0 && owned(b).length > 0, 'both hosts to hold partitions', 60_000);
      const created = await createApiKey(a.host.context.store, a.host.context.box, { name: 'hints', plan: 'pro' });
      // b beats no more: what it starts from now on, it starts on a hint.
      (b.host.context.runner as unknown as { beat(): Promise<void> }).beat = () => Promise.resolve();
      let queryId: string | undefined;
      for (let index = 0; queryId === undefined; index += 1) {
        const id = await createQuery(a.base, created.key, { title: `h${index}`, query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message: 'above' } }], expiresIn: '1h' } });
        if (owned(b).includes(partitionOf(id, 4))) queryId = id;
      }
      await until(() => b.host.context.runner.inspect(queryId) !== undefined, 'b to run the query created through a', 60_000);
      const sse = await RawStream.open(`${a.base}/v2/auto/queries/stream`, { 'x-svc-api-key': created.key });
      expect(sse.status).toBe(200);

      // The publisher of the example publishes a price that fires the query on b.
      const publisher = await MarketBus.connect(nats.url, { name: 'publisher', auth: { user: 'eql-publisher', password: passwords.EQL_PUBLISHER_PASSWORD } });
      cleanups.push(() => publisher.close());
      await new BusPublisher(publisher).publish([{ observation: { at: Date.now(), source: 'price', symbol: 'BTC', price: 150 }, id: 'tick-1' }]);
      await sse.waitFor(() => sse.named('notification:new').some((frame) => frame.data?.includes(queryId) === true), 'the notification stored by b on the stream of a');
      sse.close();

      // The publisher can neither read the hints nor send one, nor make a stream of its own.
      const asPublisher = await connect({ servers: nats.url, user: 'eql-publisher', pass: passwords.EQL_PUBLISHER_PASSWORD });
      cleanups.push(() => asPublisher.close());
      const denied: string[] = [];
      void (async () => {
        for await (const status of asPublisher.status()) if (status.type === 'error') denied.push(String(status.error));
      })();
      asPublisher.subscribe('eql-market-signal.>');
      asPublisher.publish('eql-market-signal.query', 'hello');
      await asPublisher.flush();
      await until(() => denied.length >= 2, 'the server to refuse the publisher twice');
      expect(denied.join('\n')).toMatch(/Permissions Violation for Subscription to "eql-market-signal\.>"/);
      expect(denied.join('\n')).toMatch(/Permissions Violation for Publish to "eql-market-signal\.query"/);
      await expect(MarketBus.connect(nats.url, { stream: 'OTHER', auth: { user: 'eql-publisher', password: passwords.EQL_PUBLISHER_PASSWORD } })).rejects.toThrow(/Permissions Violation|permission/i);

      const hints = seen.filter((message) => message.subject.startsWith('eql-market-signal.'));
      expect(new Set(hints.map((message) => message.subject))).toEqual(new Set(['eql-market-signal.query', 'eql-market-signal.notification']));
      for (const message of seen) {
        expect(message.text, `a message on ${message.subject}`).not.toContain(queryId);
        expect(message.text, `a message on ${message.subject}`).not.toMatch(/queryId|keyId/);
      }
      const opened = hints.map((message) => JSON.parse(HINT_KEY.open(message.text)) as { kind: string; data: Record<string, unknown> });
      expect(opened).toContainEqual(expect.objectContaining({ kind: 'query', data: { queryId } }));
      expect(opened).toContainEqual(expect.objectContaining({ kind: 'notification', data: { keyId: created.record.id } }));
      // Authenticated: no warning that the bus is open, and no password in any log line.
      expect(logs.join('\n')).not.toContain('the market bus is open');
      expect(logs.join('\n')).not.toContain(passwords.EQL_HOST_PASSWORD);
    });

    it('eql serve takes the user and password of EQL_NATS_URL, and prints the URL with them masked', { timeout: 120_000 }, async () => {
      const password = `pw${randomBytes(8).toString('hex')}`;
      const nats = await server(`authorization { users = [ { user: eql, password: ${password} } ] }`);
      const schema = await freshSchema('bus_serve');
      cleanups.push(() => schema.drop());
      const dir = await mkdtemp(join(tmpdir(), 'eql-bus-serve-'));
      cleanups.push(() => removeDir(dir));
      const child = await serveChild({
        EQL_DATABASE_URL: schema.url,
        EQL_NATS_URL: `nats://eql:${password}@127.0.0.1:${nats.port}`,
        EQL_FEED: 'bus',
        EQL_SECRET_KEY: SECRET_KEY_HEX,
        EQL_PORT: '0',
        EQL_HOST: '127.0.0.1',
        EQL_DATA_DIR: dir,
        EQL_MARKET_SEED: 'none',
      });
      cleanups.push(() => child.kill9());
      expect(child.output()).toContain(`bus: NATS at nats://***@127.0.0.1:${nats.port}, stream EQL_MARKET\n`);
      expect(child.output()).not.toContain(password);
      const base = /listening on (http:\/\/\S+)/.exec(child.output())![1]!;
      expect(((await (await fetch(`${base}/ready`)).json()) as { bus?: { connected: boolean } }).bus).toMatchObject({ connected: true });
    });

    it('warns at start when the server asks no authentication and listens beyond loopback', { timeout: 120_000 }, async () => {
      const nats = await server('', { listen: '0.0.0.0' });
      const schema = await freshSchema('bus_open');
      cleanups.push(() => schema.drop());
      const dir = await mkdtemp(join(tmpdir(), 'eql-bus-open-'));
      cleanups.push(() => removeDir(dir));
      const logs: string[] = [];
      const host = await buildServer({
        config: { dataDir: dir, databaseUrl: schema.url, natsUrl: nats.url, feed: 'bus', secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId: 'open-a', partitions: 2, leaseTtlMs: 3_000 },
        logger: { level: 'warn', stream: { write: (line: string) => void logs.push(line) } },
      });
      await host.close();
      const warnings = logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.msg.includes('the market bus is open'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40 });
      expect(warnings[0]!.msg).toMatch(/^warning: the market bus is open: its NATS server \(listening on 0\.0\.0\.0:\d+\) asks for no authentication, so anyone who can reach it can publish prices into the stream, and every tenant's queries fire on them, orders included; set EQL_NATS_USER/);
    });
  });
});

describe('a hint key', () => {
  it('is the same on every host of one secret key, and another purpose\'s or another key\'s does not open its hints', () => {
    const sealed = HINT_KEY.seal('{"kind":"query"}');
    expect(SecretBox.fromKey(SECRET_KEY_HEX).derive('eql market bus hints').open(sealed)).toBe('{"kind":"query"}');
    expect(() => SecretBox.fromKey(SECRET_KEY_HEX).open(sealed)).toThrow();
    expect(() => SecretBox.fromKey(SECRET_KEY_HEX).derive('another purpose').open(sealed)).toThrow();
    expect(() => SecretBox.fromKey(randomBytes(32).toString('hex')).derive('eql market bus hints').open(sealed)).toThrow();
  });
});
