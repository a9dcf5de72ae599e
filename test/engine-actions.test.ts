import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asyncScheduler } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { UndiciHttpTransport } from '@eql/adapters';
import { type ActionContext, ActionError, conditionFacts, MessengerBotExecutor, WebhookExecutor, type TriggerContext } from '@eql/core';

/**
 * The webhook and messenger_bot executors over the real Node transport, against HTTP servers on
 * loopback: what is sent, how it is signed, how failures are retried, what is never leaked.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let servers: Server[] = [];

async function serve(handler: (request: Received, response: ServerResponse, count: number) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      received.push(entry);
      handler(entry, response, received.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
});

const trigger: TriggerContext = {
  queryId: '2f7c5a3e-9a4b-4a56-8a8e-0b1c2d3e4f50',
  title: 'BTC breaks out',
  triggerIndex: 1,
  firedAt: Date.parse('2026-01-06T16:02:00Z'),
  conditionStates: [{ path: '/AND/0', source: 'price', method: 'current', holds: true, value: 105120.63, threshold: 105000 }],
};

const context = (stepId: string, extra: Partial<ActionContext> = {}): ActionContext => ({
  trigger,
  stepId,
  executionId: 'exec-1',
  idempotencyKey: `${trigger.queryId}:1:${stepId}`,
  ownerId: 'key-1',
  now: () => Date.now(),
  ...extra,
});

const transport = new UndiciHttpTransport({ allowPrivate: true });
const fastRetries = { baseMs: 10, maxMs: 50, maxAttempts: 4, random: () => 0.5 };

async function run(executor: { execute: (a: never, c: ActionContext) => unknown }, action: unknown, ctx: ActionContext) {
  const { firstValueFrom } = await import('rxjs');
  return firstValueFrom(executor.execute(action as never, ctx) as never);
}

describe('webhook over loopback', () => {
  const secret = 'whsec-owner-secret';
  const webhook = (options: Partial<ConstructorParameters<typeof WebhookExecutor>[0]> = {}) =>
    new WebhookExecutor({ transport, scheduler: asyncScheduler, allowPrivate: true, secretFor: (owner) => (owner === 'key-1' ? secret : undefined), backoff: fastRetries, ...options });

  it('POSTs the trigger as JSON with Standard Webhooks headers and a verifiable signature', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(204).end());
    const outcome = await run(webhook(), { stepId: 'hook', type: 'webhook', params: { url: `${url}/hook?team=desk`, headers: { 'X-Team': 'desk', 'webhook-id': 'spoofed' }, payload: { desk: 'alpha' } } }, context('hook'));
    expect(outcome).toEqual({ result: { status: 204, attempts: 1 } });
    const [request] = received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hook?team=desk');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-team']).toBe('desk');
    expect(request?.headers['webhook-id']).toBe(`${trigger.queryId}:1:hook`);
    const timestamp = String(request?.headers['webhook-timestamp']);
    const expected = createHmac('sha256', secret).update(`${trigger.queryId}:1:hook.${timestamp}.${request?.body}`).digest('base64');
    expect(request?.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(JSON.parse(request?.body ?? '')).toMatchObject({
      id: `${trigger.queryId}:1:hook`,
      type: 'eql.query.triggered',
      data: { queryId: trigger.queryId, title: 'BTC breaks out', triggerIndex: 1, firedAt: '2026-01-06T16:02:00.000Z', stepId: 'hook', conditionStates: trigger.conditionStates, payload: { desk: 'alpha' } },
    });
  });

  it('retries 500 and 429 (honouring Retry-After) with the same webhook-id, then succeeds', async () => {
    const { url, received } = await serve((_request, response, count) => {
      if (count === 1) response.writeHead(500).end('boom');
      else if (count === 2) response.writeHead(429, { 'retry-after': '0' }).end();
      else response.writeHead(200).end('ok');
    });
    const outcome = await run(webhook(), { stepId: 'hook', type: 'webhook', params: { url } }, context('hook'));
    expect(outcome).toEqual({ result: { status: 200, attempts: 3 } });
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([`${trigger.queryId}:1:hook`]));
  });

  it('gives up after the attempt limit with WEBHOOK_HTTP_ERROR', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(503).end());
    await expect(run(webhook(), { stepId: 'hook', type: 'webhook', params: { url } }, context('hook'))).rejects.toMatchObject({
      code: 'WEBHOOK_HTTP_ERROR',
      message: 'the webhook endpoint answered 503 after 4 attempts',
    });
    expect(received).toHaveLength(4);
  });

  it.each([
    [410, 'WEBHOOK_GONE'],
    [302, 'WEBHOOK_HTTP_ERROR'],
    [400, 'WEBHOOK_HTTP_ERROR'],
  ])('fails at once on %d (%s), without retrying or following redirects', async (status, code) => {
    const { url, received } = await serve((_request, response) => response.writeHead(status, { location: 'http://127.0.0.1:9/elsewhere' }).end());
    await expect(run(webhook(), { stepId: 'hook', type: 'webhook', params: { url } }, context('hook'))).rejects.toMatchObject({ code });
    expect(received).toHaveLength(1);
  });

  it('times out a silent endpoint and retries it', async () => {
    const { url, received } = await serve(() => undefined);
    await expect(run(webhook({ timeoutMs: 100, backoff: { ...fastRetries, maxAttempts: 2 } }), { stepId: 'hook', type: 'webhook', params: { url } }, context('hook'))).rejects.toMatchObject({
      code: 'WEBHOOK_TIMEOUT',
    });
    expect(received).toHaveLength(2);
  });

  it('refuses loopback and private targets unless allowed, before any connection', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(200).end());
    const strict = new WebhookExecutor({ transport: new UndiciHttpTransport(), scheduler: asyncScheduler, backoff: fastRetries });
    await expect(run(strict, { stepId: 'hook', type: 'webhook', params: { url } }, context('hook'))).rejects.toBeInstanceOf(ActionError);
    await expect(run(strict, { stepId: 'hook', type: 'webhook', params: { url: url.replace('127.0.0.1', 'localhost') } }, context('hook'))).rejects.toMatchObject({
      code: 'WEBHOOK_BLOCKED_TARGET',
    });
    expect(received).toHaveLength(0);
  });

  it('sends a body of its own: placeholders filled JSON-escaped, the signature over the bytes sent; text/plain as written', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(204).end());
    const withFacts = { ...trigger, title: 'BTC "breaks" out', templateFacts: conditionFacts({ AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 105000 }] }) };
    const templated = (stepId: string): ActionContext => ({ ...context(stepId), trigger: withFacts });
    const discord = '{"content": "{{title}}: {{symbol}} {{operator}} {{threshold}} at {{value}} ({{firedAt}})"}';
    await run(webhook(), { stepId: 'discord', type: 'webhook', params: { url, body: discord, headers: { 'Content-Type': 'text/html' } } }, templated('discord'));
    const [json] = received;
    expect(json?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json?.body ?? '')).toEqual({ content: 'BTC "breaks" out: BTC > 105000 at 105120.63 (2026-01-06T16:02:00.000Z)' });
    const timestamp = String(json?.headers['webhook-timestamp']);
    expect(json?.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', secret).update(`${trigger.queryId}:1:discord.${timestamp}.${json?.body}`).digest('base64')}`);
    await run(webhook(), { stepId: 'plain', type: 'webhook', params: { url, body: '{{symbol}} at {{value}}, "{{title}}"', contentType: 'text/plain' } }, templated('plain'));
    expect(received[1]?.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(received[1]?.body).toBe('BTC at 105120.63, "BTC "breaks" out"');
  });

  it('fails a JSON body that is no JSON once filled, and sends nothing', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(204).end());
    await expect(run(webhook(), { stepId: 'hook', type: 'webhook', params: { url, body: '{"price": {{AND.3.value}}}' } }, context('hook'))).rejects.toMatchObject({ code: 'WEBHOOK_BODY_INVALID' });
    expect(received).toHaveLength(0);
  });

  it('sends no signature when the owner has no secret', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(200).end());
    await run(webhook(), { stepId: 'hook', type: 'webhook', params: { url } }, context('hook', { ownerId: 'other' }));
    expect(received[0]?.headers['webhook-signature']).toBeUndefined();
  });
});

describe('messenger_bot over loopback (a fake bot API)', () => {
  const token = '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0';
  const bot = (baseUrl: string) => new MessengerBotExecutor({ transport, scheduler: asyncScheduler, baseUrl, backoff: fastRetries });
  const action = { stepId: 'tg', type: 'messenger_bot', params: { botToken: token, chatId: '-1001234567890', message: 'BTC crossed 105k' } };

  it('calls sendMessage with the chat and the text', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{"message_id":42}}'));
    await expect(run(bot(url), action, context('tg'))).resolves.toEqual({ result: { messageId: 42 } });
    expect(received[0]?.url).toBe(`/bot${token}/sendMessage`);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual({ chat_id: '-1001234567890', text: 'BTC crossed 105k', disable_web_page_preview: true });
  });

  it('waits retry_after on 429 and retries', async () => {
    const { url, received } = await serve((_request, response, count) => {
      if (count === 1) response.writeHead(429).end('{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 0","parameters":{"retry_after":0}}');
      else response.writeHead(200).end('{"ok":true,"result":{"message_id":7}}');
    });
    await expect(run(bot(url), action, context('tg'))).resolves.toEqual({ result: { messageId: 7 } });
    expect(received).toHaveLength(2);
  });

  it('fails with the API description and never shows the token', async () => {
    const { url } = await serve((_request, response) => response.writeHead(400).end('{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}'));
    const failure = await run(bot(url), action, context('tg')).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'MESSENGER_BOT_ERROR', message: 'the bot API refused the message (400: Bad Request: chat not found)' });
    expect(JSON.stringify(failure)).not.toContain(token);
    expect(String((failure as Error).message)).not.toContain(token);
  });

  it('sends a summary of the trigger when the step has no message', async () => {
    const { url, received } = await serve((_request, response) => response.writeHead(200).end('{"ok":true,"result":{"message_id":1}}'));
    await run(bot(url), { ...action, params: { botToken: token, chatId: 12345 } }, context('tg'));
    const sent = JSON.parse(received[0]?.body ?? '') as { chat_id: number; text: string };
    expect(sent.chat_id).toBe(12345);
    expect(sent.text).toContain('BTC breaks out triggered at 2026-01-06T16:02:00.000Z');
    expect(sent.text).toContain('price.current = 105120.63 (threshold 105000)');
  });
});
