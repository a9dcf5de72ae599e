import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_TOKENS, messageTokens, PHRASE_RULES } from '@eql/builder';
import { testHost, type TestHost } from './support/host.js';

/**
 * The query builder's routes bound its work (issue 45, finding 8): a message of more tokens than the
 * builder reads is a 400 `message_too_long` before any work, charge or payment; one within the cap is
 * answered. Work is counted (attempts of the phrase rules), never timed.
 */

/** Attempts of the phrase rules, counted by wrapping the rule table the builder's scanner reads. */
let attempts = 0;
const originals = PHRASE_RULES.map((rule) => rule.pattern);
beforeEach(() => {
  attempts = 0;
  PHRASE_RULES.forEach((rule, index) => {
    const pattern = originals[index] as (typeof rule)['pattern'];
    rule.pattern = (tokens, at) => {
      attempts += 1;
      return pattern(tokens, at);
    };
  });
});
afterEach(() => {
  PHRASE_RULES.forEach((rule, index) => {
    rule.pattern = originals[index] as (typeof rule)['pattern'];
  });
});

/** 4,000 characters (the routes' limit) of one-character signs: 4,000 tokens. */
const SIGN_SOUP = '-'.repeat(4_000);

describe('the builder routes bound the work of a message', () => {
  let host: TestHost;
  let key: string;
  let keyId: number;

  beforeAll(async () => {
    host = await testHost({ config: { x402: { payTo: '0x3333333333333333333333333333333333333333', agentSecrets: ['agent-secret-of-the-bounds-tests'] } } });
    const created = await host.newKey();
    key = created.key;
    keyId = created.record.id;
  });
  afterAll(() => host.close());

  const ask = (url: string, message: string, headers: Record<string, string> = { 'x-svc-api-key': key }) => host.app.inject({ method: 'POST', url, headers, payload: { message } });

  it('a message of more tokens than the builder reads is a 400 message_too_long: not read, not charged', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const before = host.store.creditsUsed(keyId, day);
    const response = await ask('/v2/auto/chat', SIGN_SOUP);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: { code: 'message_too_long', message: expect.stringContaining(`at most ${MAX_MESSAGE_TOKENS}`) as unknown, details: { field: 'message', tokens: 4_000, maxTokens: MAX_MESSAGE_TOKENS } },
    });
    expect(response.headers['x-svc-credits-used']).toBe('0');
    expect(attempts).toBe(0);
    expect(host.store.creditsUsed(keyId, day)).toEqual(before);
  });

  it('the paid route refuses it before any payment is asked (400, not 402)', async () => {
    const response = await ask('/x402/v2/auto/chat', SIGN_SOUP, {});
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'message_too_long' } });
    expect(attempts).toBe(0);
  });

  it('the chat routes do not run the builder: the analyst answers a message of 4,000 signs', async () => {
    const response = await ask('/v2/chat', SIGN_SOUP);
    expect(response.statusCode).toBe(200);
    expect(attempts).toBe(0);
  });

  it('a message at the cap is answered (and charged as usual)', async () => {
    const message = `${'x '.repeat(MAX_MESSAGE_TOKENS - 3)}BTC above 70k`;
    expect(messageTokens(message)).toBe(MAX_MESSAGE_TOKENS);
    const response = await ask('/v2/auto/chat', message);
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-svc-credits-used']).toBe('5');
    expect(attempts).toBeGreaterThan(0);
  });
});
