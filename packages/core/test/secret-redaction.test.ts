import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asyncScheduler, filter, firstValueFrom } from 'rxjs';
import {
  type ActionContext,
  ActionError,
  type ActionExecutor,
  Engine,
  type EngineEvent,
  EpochVirtualScheduler,
  type ExecutionRecord,
  type HttpTransport,
  MemoryStateStore,
  MessengerBotExecutor,
  PushSource,
  type QueryRequest,
  redactSecrets,
  secretRedactor,
  validate,
  WebhookExecutor,
  webhookSigningKey,
} from '@eql/core';

// Issue 13: secrets never appear in error texts (executions, problems), the redactor removes whole
// values only, webhooks sign with one or several secrets (Standard Webhooks `whsec_` keys), and a host
// that allows private webhooks says so to the validator.

const TOKEN = '123456789:AAHcanaryBotTokenXYZ0123456789abcdefgh';

describe('secretRedactor', () => {
  it('never cuts a short submitted value out of ordinary words', () => {
    const text = 'NetworkError: a request to https://api.example.com failed (code 1234, order 12345)';
    expect(redactSecrets(text, ['a', 'Net', 'k'])).toBe(text);
    expect(redactSecrets(text, ['1234'])).toBe('NetworkError: a request to https://api.example.com failed (code [redacted], order 12345)');
    expect(redactSecrets('Networ1234Error', ['1234'])).toBe('Networ1234Error');
  });

  it('removes long values wherever they are, inside URLs too, longest first', () => {
    const url = `https://api.telegram.org/bot${TOKEN}/sendMessage`;
    expect(redactSecrets(`fetch failed: ${url}`, [TOKEN])).toBe('fetch failed: https://api.telegram.org/bot[redacted]/sendMessage');
    expect(secretRedactor(['abcdefghijkl', 'abcdefghijklmnop'])('x abcdefghijklmnop y')).toBe('x [redacted] y');
    expect(secretRedactor([])('unchanged')).toBe('unchanged');
  });
});

describe('messenger_bot error texts', () => {
  const action = { stepId: 'tg', type: 'messenger_bot', params: { botToken: TOKEN, chatId: '-1001234567890', message: 'hi' } } as const;
  const context: ActionContext = {
    trigger: { queryId: 'q', triggerIndex: 1, firedAt: 0, conditionStates: [] },
    stepId: 'tg',
    executionId: 'e',
    idempotencyKey: 'q:1:tg',
    now: () => 0,
  };
  const failureOf = (transport: HttpTransport) =>
    firstValueFrom(new MessengerBotExecutor({ transport, scheduler: asyncScheduler, backoff: { maxAttempts: 1 } }).execute(action, context)).then(
      () => new ActionError('UNEXPECTED', 'the message was sent'),
      (error: unknown) => error as ActionError,
    );

  it('an API description that quotes the URL loses the token', async () => {
    const echo: HttpTransport = { send: (request) => Promise.resolve({ status: 404, headers: {}, body: JSON.stringify({ ok: false, description: `Not Found: POST ${request.url}` }) }) };
    const failure = await failureOf(echo);
    expect(failure).toBeInstanceOf(ActionError);
    expect(failure.message).toContain('Not Found: POST https://api.telegram.org/bot[redacted]/sendMessage');
    expect(failure.message).not.toContain(TOKEN);
  });

  it('a transport that throws at once with the URL in its message does not leak it', async () => {
    const throwing: HttpTransport = {
      send: (request) => {
        throw new TypeError(`Invalid URL: ${request.url}`);
      },
    };
    const failure = await failureOf(throwing);
    expect(failure).toMatchObject({ code: 'MESSENGER_BOT_ERROR' });
    expect(failure.message).not.toContain(TOKEN);
  });
});

describe('the engine redacts the secrets of a query from execution errors and problems', () => {
  it('an executor whose error names the bot token and a webhook header records them redacted', async () => {
    const authorization = 'Bearer canary-webhook-credential-0123456789';
    const leaking: ActionExecutor = {
      execute: (action) => {
        throw new Error(`could not send ${JSON.stringify(action.params)}`);
      },
    };
    const scheduler = new EpochVirtualScheduler(Date.parse('2026-01-05T00:00:00Z'), Number.MAX_SAFE_INTEGER);
    const source = new PushSource();
    const store = new MemoryStateStore();
    const engine = new Engine({ scheduler, sources: [source], store, executors: { messenger_bot: leaking, webhook: leaking } });
    const events: EngineEvent[] = [];
    engine.events$.subscribe((event) => events.push(event));
    const request = {
      title: 'leaky',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] },
        actions: [
          { stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x', headers: { Authorization: authorization } } },
          { stepId: 'bot', type: 'messenger_bot', params: { botToken: TOKEN, chatId: '@alerts' } },
        ],
        expiresIn: '1h',
      },
    } as QueryRequest;
    engine.add({ queryId: 'q1', request, createdAt: scheduler.now() });
    const failed = firstValueFrom(engine.events$.pipe(filter((event) => event.type === 'execution-failed')));
    source.push({ at: scheduler.now(), source: 'price', symbol: 'BTC', price: 2 });
    const event = await failed;
    const execution: ExecutionRecord = event.execution;
    expect(execution.error?.message).toContain('[redacted]');
    expect(execution.error?.message).not.toContain(authorization);
    expect(JSON.stringify(events)).not.toContain(authorization);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    engine.dispose();
  });
});

describe('webhook signatures', () => {
  const context: ActionContext = {
    trigger: { queryId: 'q', triggerIndex: 1, firedAt: 0, conditionStates: [] },
    stepId: 'hook',
    executionId: 'e',
    idempotencyKey: 'q:1:hook',
    ownerId: 'owner',
    now: () => 1_767_657_600_000,
  };
  const deliver = async (secrets: string | string[]) => {
    const sent: Array<{ headers: Record<string, string>; body: string }> = [];
    const transport: HttpTransport = {
      send: (request) => {
        sent.push({ headers: request.headers, body: request.body ?? '' });
        return Promise.resolve({ status: 200, headers: {}, body: '' });
      },
    };
    const executor = new WebhookExecutor({ transport, scheduler: asyncScheduler, secretFor: () => secrets });
    await firstValueFrom(executor.execute({ stepId: 'hook', type: 'webhook', params: { url: 'https://hooks.example.com/x' } }, context));
    return sent[0] as { headers: Record<string, string>; body: string };
  };
  const expected = (key: string | Buffer, delivery: { headers: Record<string, string>; body: string }) =>
    `v1,${createHmac('sha256', key).update(`${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.body}`).digest('base64')}`;

  it('a whsec_ secret signs with the bytes it encodes (Standard Webhooks)', async () => {
    const bytes = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = `whsec_${bytes.toString('base64')}`;
    const delivery = await deliver(secret);
    expect(delivery.headers['webhook-signature']).toBe(expected(bytes, delivery));
    expect(Buffer.from(webhookSigningKey(secret) as Uint8Array).equals(bytes)).toBe(true);
    expect(webhookSigningKey('plain-secret')).toBe('plain-secret');
  });

  it('several secrets each sign: the header lists every signature', async () => {
    const delivery = await deliver(['new-secret-0123456789', 'old-secret-0123456789']);
    expect(delivery.headers['webhook-signature']).toBe(`${expected('new-secret-0123456789', delivery)} ${expected('old-secret-0123456789', delivery)}`);
  });
});

describe('validate with a host that allows private webhooks', () => {
  const request = {
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] },
      actions: [{ stepId: 'hook', type: 'webhook', params: { url: 'http://127.0.0.1:8788/hook' } }],
      expiresIn: '1h',
    },
  };

  it('refuses a loopback URL by default and takes it when allowed', () => {
    const refused = validate(request);
    expect(refused.valid).toBe(false);
    expect(refused.diagnostics.map((diagnostic) => diagnostic.code)).toContain('webhook-private-host');
    const allowed = validate(request, { allowPrivateWebhooks: true });
    expect(allowed.valid).toBe(true);
    expect(allowed.diagnostics.map((diagnostic) => diagnostic.code)).toContain('webhook-insecure');
  });
});
