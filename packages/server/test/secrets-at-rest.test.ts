import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { filter, firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { type EngineEvent, type Exchange, parseRecording, PushSource } from '@eql/core';
import { buildServer, type Host } from '../src/build-server.js';
import { createApiKey, type CreatedKey } from '../src/auth/api-keys.js';
import type { HostConfig } from '../src/config.js';
import { SecretBox } from '../src/secrets.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { SECRET_MASK } from '../src/store/request-secrets.js';
import { SqliteStore } from '../src/store/sqlite-store.js';
import type { ProcessRunner } from '../src/host/process-runner.js';
import { at, call, errorCode, json, testHost } from './support/host.js';

// Issue 13. Finding 1: secrets (bot tokens, webhook headers, exchange credentials) are not at rest in
// clear, and the data directory is its owner's only. Finding 3: webhooks are signed with a webhook
// secret of their own, rotatable. Finding 4: EQL_ALLOW_PRIVATE_WEBHOOKS applies to validation too.

const BOT_TOKEN = '987654321:CANARYbotTokenAAAAbbbbCCCCdddd0000';
const DRAFT_BOT_TOKEN = '987654321:CANARYdraftTokenEEEEffffGGGGhhhh11';
const WEBHOOK_AUTHORIZATION = 'Bearer canary-webhook-credential-7f3a9c';
const EXCHANGE_API_KEY = 'canaryExchangeApiKey5b1e7';
const EXCHANGE_SECRET = 'canaryExchangeSecret9d2c4';
const CANARIES = [BOT_TOKEN, DRAFT_BOT_TOKEN, WEBHOOK_AUTHORIZATION, EXCHANGE_API_KEY, EXCHANGE_SECRET];

const RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** An HTTP server on loopback answering `answer` and recording every request. */
async function loopback(answer: string): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ url: request.url ?? '', headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function dataDirectory(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'eql-secrets-')), 'data');
  cleanups.push(() => rm(join(dir, '..'), { recursive: true, force: true }));
  return dir;
}

/** A host on a data directory with its own files (the store, the key file), fed by `push`. */
async function openHost(dataDir: string, config: Partial<HostConfig>, push = new PushSource(), connected: Array<Record<string, string>> = []): Promise<Host & { push: PushSource }> {
  const host = await buildServer({
    config: { dataDir, marketSeed: false, allowPrivateWebhooks: true, exchanges: ['binance'], ...config },
    logger: false,
    engine: { sources: [push], recording: RECORDING },
    connectExchange: (_exchange, _type, credentials) => {
      connected.push(credentials);
      return Promise.resolve({ id: 'binance' } as Exchange);
    },
  });
  return { ...host, push };
}

/** Resolves with the next `count` finished executions. */
function finishedExecutions(host: Host, count: number): Promise<EngineEvent[]> {
  return firstValueFrom(
    (host.context.runner as ProcessRunner).engine.events$.pipe(
      filter((event) => event.type === 'execution-succeeded' || event.type === 'execution-failed'),
      take(count),
      toArray(),
    ),
  );
}

/** Every file under a directory, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(entries.map((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]))));
  return files.flat();
}

/** Whether a `webhook-signature` header holds a v1 signature of the delivery by this secret. */
function signedWith(delivery: Received, secret: string): boolean {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : secret;
  const expected = createHmac('sha256', key).update(`${String(delivery.headers['webhook-id'])}.${String(delivery.headers['webhook-timestamp'])}.${delivery.body}`).digest('base64');
  return String(delivery.headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(`v1,${expected}`);
}

const priceAbove1 = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 };

async function validateAndCreate(host: Host, key: CreatedKey, body: Record<string, unknown>): Promise<string> {
  const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body });
  expect(json(validated).valid, validated.body).toBe(true);
  const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body });
  expect(created.statusCode, created.body).toBe(201);
  return json(created).queryId as string;
}

describe('secrets at rest (finding 1)', () => {
  it('no canary secret is in any file of the data directory, the actions still get them, and the files are the owner’s only', async () => {
    const dataDir = await dataDirectory();
    const receiver = await loopback('{}');
    const botApi = await loopback('{"ok":true,"result":{"message_id":5}}');
    const connected: Array<Record<string, string>> = [];
    const host = await openHost(dataDir, { messengerBaseUrl: botApi.url }, new PushSource(), connected);
    const key = await createApiKey(host.context.store, host.context.box, { name: 'canary', plan: 'pro' });

    // Exchange credentials, verified then stored.
    const connect = await call(host.app, {
      method: 'POST',
      url: '/v2/auto/exchanges',
      key,
      signed: true,
      body: { exchange: 'binance', credentialType: 'api_key', credentials: { apiKey: EXCHANGE_API_KEY, secret: EXCHANGE_SECRET } },
    });
    expect(connect.statusCode, connect.body).toBe(201);

    // A query with a webhook carrying an Authorization header and a bot message.
    const hookUrl = `${receiver.url}/hook`;
    const queryId = await validateAndCreate(host, key, {
      title: 'canary',
      query: {
        conditions: { AND: [priceAbove1] },
        actions: [
          { stepId: 'hook', type: 'webhook', params: { url: hookUrl, headers: { Authorization: WEBHOOK_AUTHORIZATION } } },
          { stepId: 'bot', type: 'messenger_bot', params: { botToken: BOT_TOKEN, chatId: '@eql_alerts', message: 'BTC moved' } },
        ],
        expiresIn: '24h',
      },
    });

    // A draft with a bot token: read back masked; an update that sends the mask keeps the token.
    const draftBody = {
      title: 'draft canary',
      query: {
        conditions: { AND: [priceAbove1] },
        actions: [
          { stepId: 'bot', type: 'messenger_bot', params: { botToken: DRAFT_BOT_TOKEN, chatId: '@eql_alerts' } },
          { stepId: 'hook', type: 'webhook', params: { url: hookUrl, headers: { Authorization: WEBHOOK_AUTHORIZATION, 'X-Desk': 'eth' } } },
        ],
        expiresIn: '24h',
      },
    };
    const draft = await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body: draftBody });
    const draftId = json(draft).draftId as string;
    const readDraft = await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key });
    expect(at(json(readDraft), 'request', 'query', 'actions', 0, 'params', 'botToken')).toBe(SECRET_MASK);
    expect(at(json(readDraft), 'request', 'query', 'actions', 1, 'params', 'headers')).toEqual({ Authorization: SECRET_MASK, 'X-Desk': SECRET_MASK });
    expect(at(json(readDraft), 'request', 'query', 'actions', 1, 'params', 'url')).toBe(hookUrl);
    const edited = { ...(json(readDraft).request as Record<string, unknown>), title: 'draft canary, edited' };
    const update = await call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts?draftId=${draftId}`, key, body: edited });
    expect(update.statusCode, update.body).toBe(200);
    const stored = await host.context.store.draftById(draftId);
    expect(stored?.request.title).toBe('draft canary, edited');
    expect(at(stored?.request, 'query', 'actions', 0, 'params', 'botToken')).toBe(DRAFT_BOT_TOKEN);
    expect(at(stored?.request, 'query', 'actions', 1, 'params', 'headers')).toEqual({ Authorization: WEBHOOK_AUTHORIZATION, 'X-Desk': 'eth' });

    // The query fires: the webhook receiver gets the header, the bot API the token.
    const finished = finishedExecutions(host, 2);
    host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 2 });
    const executions = await finished;
    expect(executions.map((event) => event.type)).toEqual(['execution-succeeded', 'execution-succeeded']);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers.authorization).toBe(WEBHOOK_AUTHORIZATION);
    expect(botApi.received[0]?.url).toBe(`/bot${BOT_TOKEN}/sendMessage`);

    // What the API answers never holds them.
    for (const url of [`/v2/auto/queries/${queryId}`, '/v2/auto/queries', '/v2/auto/executions', '/v2/auto/exchanges', '/v2/auto/queries/drafts']) {
      const answer = await call(host.app, { url, key });
      expect(answer.statusCode, url).toBe(200);
      for (const canary of CANARIES) expect(answer.body, `${url} echoes a secret`).not.toContain(canary);
    }
    await host.close();

    // The raw bytes of every file (the databases with their -wal and -shm, the key file, ...).
    const files = await filesUnder(dataDir);
    expect(files.map((file) => file.slice(dataDir.length + 1))).toEqual(expect.arrayContaining(['eql.sqlite', 'secret.key']));
    for (const file of files) {
      const bytes = await readFile(file);
      for (const canary of CANARIES) expect(bytes.includes(canary), `${file} holds ${canary}`).toBe(false);
    }
    // Modes (POSIX): the directory 0700, every file 0600.
    if (process.platform !== 'win32') {
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
      for (const file of files) expect((await stat(file)).mode & 0o777, file).toBe(0o600);
    }

    // A restart opens them again: the engine runs the stored query with its token, the venue gets its credentials.
    const again = await openHost(dataDir, { messengerBaseUrl: botApi.url }, new PushSource(), connected);
    cleanups.push(() => again.close());
    expect(at((await again.context.store.queryById(queryId))?.request, 'query', 'actions', 1, 'params', 'botToken')).toBe(BOT_TOKEN);
    connected.length = 0;
    await again.context.runner.exchangeFor('binance', key.record.id);
    expect(connected).toEqual([{ apiKey: EXCHANGE_API_KEY, secret: EXCHANGE_SECRET }]);
  });

  it('migration 6 seals the secrets of queries and drafts stored before it, and gives each key its HMAC secret as webhook secret', async () => {
    const dataDir = await dataDirectory();
    const path = join(dataDir, 'eql.sqlite');
    const box = SecretBox.fromKey('0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0');
    // A database of the versions before 6, with secrets in clear.
    await import('node:fs/promises').then((fs) => fs.mkdir(dataDir, { recursive: true }));
    const old = new Database(path);
    old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const migration of MIGRATIONS.filter((candidate) => candidate.version < 6)) {
      old.exec(migration.sql);
      old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    }
    old
      .prepare("INSERT INTO api_keys (key_hash, key_prefix, name, plan, status, hmac_secret_sealed, created_at, updated_at) VALUES ('h', 'eql_', 'old', 'pro', 'active', ?, 'now', 'now')")
      .run(box.seal('the-old-hmac-secret-0123456789'));
    const request = {
      title: 'old',
      query: { conditions: { AND: [priceAbove1] }, actions: [{ stepId: 'bot', type: 'messenger_bot', params: { botToken: BOT_TOKEN, chatId: '@a_chat' } }], expiresIn: '1h' },
    };
    old
      .prepare("INSERT INTO queries (id, key_id, request, status, trade_flavoured, estimated_credits, credits, created_at, expires_at) VALUES ('q-old', 1, ?, 'cancelled', 0, 5, 5, 'now', 'later')")
      .run(JSON.stringify(request));
    old.prepare("INSERT INTO drafts (id, key_id, request, trade_flavoured, created_at, updated_at) VALUES ('d-old', 1, ?, 0, 'now', 'now')").run(JSON.stringify(request));
    old.close();

    // Without the box there is something it cannot seal: it refuses, and nothing changes.
    expect(() => new SqliteStore(path)).toThrow(/secret box/);
    const store = new SqliteStore(path, { box });
    const raw = store.db.prepare("SELECT (SELECT request FROM queries WHERE id = 'q-old') AS query, (SELECT request FROM drafts WHERE id = 'd-old') AS draft").get() as { query: string; draft: string };
    expect(raw.query).not.toContain(BOT_TOKEN);
    expect(raw.draft).not.toContain(BOT_TOKEN);
    expect(raw.query).toContain('"$sealed"');
    expect(at(store.queryById('q-old')?.request, 'query', 'actions', 0, 'params', 'botToken')).toBe(BOT_TOKEN);
    expect(at(store.draftById('d-old')?.request, 'query', 'actions', 0, 'params', 'botToken')).toBe(BOT_TOKEN);
    const key = store.keyById(1);
    expect(box.open(key?.webhookSecretSealed ?? '')).toBe('the-old-hmac-secret-0123456789');
    store.close();
    for (const file of await filesUnder(dataDir)) expect((await readFile(file)).includes(BOT_TOKEN), file).toBe(false);
  });
});

describe('webhook signing secrets (finding 3)', () => {
  it('webhooks are signed with the key’s webhook secret, never its HMAC secret; a signed rotation keeps the previous one signing for its grace period', async () => {
    const dataDir = await dataDirectory();
    const receiver = await loopback('{}');
    const host = await openHost(dataDir, {});
    cleanups.push(() => host.close());
    const key = await createApiKey(host.context.store, host.context.box, { name: 'hooks', plan: 'pro' });
    expect(key.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(key.webhookSecret).not.toBe(key.hmacSecret);
    let price = 1;
    const fire = async (): Promise<Received> => {
      const count = receiver.received.length;
      await validateAndCreate(host, key, { title: `hook ${price}`, query: { conditions: { AND: [{ ...priceAbove1, value: price }] }, actions: [{ stepId: 'hook', type: 'webhook', params: { url: `${receiver.url}/hook` } }], expiresIn: '1h' } });
      const finished = finishedExecutions(host, 1);
      price += 1;
      host.push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price });
      expect((await finished)[0]?.type).toBe('execution-succeeded');
      return receiver.received[count] as Received;
    };

    const first = await fire();
    expect(signedWith(first, key.webhookSecret)).toBe(true);
    expect(signedWith(first, key.hmacSecret)).toBe(false);

    // Rotation needs a signature.
    const unsigned = await call(host.app, { method: 'POST', url: '/v2/auto/webhook-secret/rotate', key, body: { graceSeconds: 3600 } });
    expect(unsigned.statusCode).toBe(401);
    expect(errorCode(unsigned)).toBe('signature_missing_headers');
    const badGrace = await call(host.app, { method: 'POST', url: '/v2/auto/webhook-secret/rotate', key, signed: true, body: { graceSeconds: -1 } });
    expect(badGrace.statusCode).toBe(400);

    const rotated = await call(host.app, { method: 'POST', url: '/v2/auto/webhook-secret/rotate', key, signed: true, body: { graceSeconds: 3600 } });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const second = json(rotated) as { webhookSecret: string; rotatedAt: string; previousValidUntil: string };
    expect(second.webhookSecret).toMatch(/^whsec_/);
    expect(Date.parse(second.previousValidUntil) - Date.parse(second.rotatedAt)).toBe(3_600_000);
    const during = await fire();
    expect(signedWith(during, second.webhookSecret)).toBe(true);
    expect(signedWith(during, key.webhookSecret)).toBe(true);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);

    // Without a grace period the previous secret stops at once.
    const third = json(await call(host.app, { method: 'POST', url: '/v2/auto/webhook-secret/rotate', key, signed: true, body: { graceSeconds: 0 } })) as { webhookSecret: string; previousValidUntil: null };
    expect(third.previousValidUntil).toBeNull();
    const after = await fire();
    expect(signedWith(after, third.webhookSecret)).toBe(true);
    expect(signedWith(after, second.webhookSecret)).toBe(false);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });
});

describe('EQL_ALLOW_PRIVATE_WEBHOOKS applies to validation (finding 4)', () => {
  const loopbackQuery = {
    title: 'to loopback',
    query: { conditions: { AND: [{ ...priceAbove1, value: 1_000_000 }] }, actions: [{ stepId: 'hook', type: 'webhook', params: { url: 'http://127.0.0.1:8788/hook' } }], expiresIn: '1h' },
  };

  it('without the switch a loopback webhook is refused at validate and create', async () => {
    const host = await testHost();
    cleanups.push(() => host.close());
    const key = await host.newKey();
    const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body: loopbackQuery });
    expect(json(validated).valid).toBe(false);
    expect(JSON.stringify(json(validated).diagnostics)).toContain('webhook-private-host');
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body: loopbackQuery });
    expect(created.statusCode).toBe(400);
    expect(errorCode(created)).toBe('invalid_query');
  });

  it('with the switch the same query validates and is created', async () => {
    const host = await testHost({ config: { allowPrivateWebhooks: true } });
    cleanups.push(() => host.close());
    const key = await host.newKey();
    const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body: loopbackQuery });
    expect(json(validated).valid, validated.body).toBe(true);
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body: loopbackQuery });
    expect(created.statusCode, created.body).toBe(201);
  });
});
