import { describe, expect, it } from 'vitest';
import { matchHmacRoute, signatureRequirement, storedLookupNeeded, type HmacContext } from '@eql/core';

const request = (actions: unknown[]) => ({ query: { conditions: { AND: [] }, actions } });
const notify = { stepId: 'n', type: 'notify', params: { message: 'x' } };
const webhook = { stepId: 'w', type: 'webhook', params: { url: 'https://example.com' } };
const bot = { stepId: 'b', type: 'messenger_bot', params: { botToken: 't', chatId: '1' } };
const llmNotify = { stepId: 'l', type: 'llm', params: { callback: { action: { type: 'notify' } } } };
const llmPlain = { stepId: 'l', type: 'llm', params: { prompt: 'why?' } };
const llmTrade = { stepId: 'l', type: 'llm', params: { callback: { action: { type: 'limit_order', params: { exchange: 'paper' } } } } };
const llmUnknown = { stepId: 'l', type: 'llm', params: { callback: { action: { type: 'teleport' } } } };
const market = { stepId: 'm', type: 'market_order', params: {} };
const unknown = { stepId: 'u', type: 'teleport', params: {} };

const decide = (method: string, path: string, context?: HmacContext) => signatureRequirement(matchHmacRoute(method, path), context);

describe('when HMAC applies (spec 5.2)', () => {
  it('always for connecting and disconnecting exchanges', () => {
    expect(decide('POST', '/exchanges', { body: {} })).toBe('required');
    expect(decide('DELETE', '/exchanges/hyperliquid')).toBe('required');
  });

  it.each([
    ['notify', [notify], 'optional'],
    ['webhook', [webhook], 'optional'],
    ['messenger_bot', [bot], 'optional'],
    ['llm with a notification callback', [llmNotify], 'optional'],
    ['llm without a callback', [llmPlain], 'optional'],
    ['market_order', [market], 'required'],
    ['notify then market_order', [notify, market], 'required'],
    ['llm with a trade callback', [llmTrade], 'required'],
    ['llm with an unknown callback type', [llmUnknown], 'required'],
    ['an unknown action type', [unknown], 'required'],
  ] as const)('create and draft upsert with %s: %s', (_label, actions, expected) => {
    expect(decide('POST', '/queries', { body: request([...actions]) })).toBe(expected);
    expect(decide('POST', '/queries/drafts', { body: request([...actions]) })).toBe(expected);
  });

  it('the update of a named draft (the id in the signed path) follows the body like the upsert', () => {
    const route = matchHmacRoute('POST', '/queries/drafts/d1');
    expect(route.entry).toMatchObject({ rule: 'body-trade', bodyInSignature: true });
    expect(route.params).toEqual({ draftId: 'd1' });
    expect(signatureRequirement(route, { body: request([market]) })).toBe('required');
    expect(signatureRequirement(route, { body: request([notify]) })).toBe('optional');
  });

  it('a body without actions is left to validation (400), not to signing', () => {
    expect(decide('POST', '/queries', { body: { query: {} } })).toBe('optional');
    expect(decide('POST', '/queries', { body: 'nonsense' })).toBe('optional');
  });

  it('cancel and delete follow the STORED query; a failed lookup requires a signature', () => {
    for (const [method, path] of [
      ['POST', '/queries/q1/cancel'],
      ['DELETE', '/queries/q1'],
    ] as const) {
      const route = matchHmacRoute(method, path);
      expect(storedLookupNeeded(route)).toEqual({ kind: 'query', id: 'q1' });
      expect(signatureRequirement(route, { stored: { kind: 'found', tradeFlavoured: true } })).toBe('required');
      expect(signatureRequirement(route, { stored: { kind: 'found', tradeFlavoured: false } })).toBe('optional');
      expect(signatureRequirement(route, { stored: { kind: 'not-found' } })).toBe('required');
      expect(signatureRequirement(route, { stored: { kind: 'error' } })).toBe('required');
      expect(signatureRequirement(route, {})).toBe('required');
    }
  });

  it('convert follows the STORED draft; missing or foreign drafts proceed to 404, other failures require it', () => {
    const route = matchHmacRoute('POST', '/queries/drafts/d1/convert');
    expect(storedLookupNeeded(route)).toEqual({ kind: 'draft', id: 'd1' });
    expect(signatureRequirement(route, { stored: { kind: 'found', tradeFlavoured: true } })).toBe('required');
    expect(signatureRequirement(route, { stored: { kind: 'found', tradeFlavoured: false } })).toBe('optional');
    expect(signatureRequirement(route, { stored: { kind: 'not-found' } })).toBe('optional');
    expect(signatureRequirement(route, { stored: { kind: 'other-owner' } })).toBe('optional');
    expect(signatureRequirement(route, { stored: { kind: 'error' } })).toBe('required');
  });

  it('validate and validate-symbol accept signatures but do not need them', () => {
    expect(decide('POST', '/queries/validate', { body: request([market]) })).toBe('optional');
    expect(decide('GET', '/validate-symbol/hyperliquid/BTC')).toBe('optional');
  });

  it('routes outside the table take a signature optionally, and the signing path is the request path', () => {
    for (const [method, path] of [
      ['POST', '/chat'],
      ['POST', '/queries/preview'],
      ['GET', '/queries/q1'],
      ['DELETE', '/queries/drafts/d1'],
    ]) {
      const route = matchHmacRoute(method as string, path as string);
      expect(signatureRequirement(route, { body: request([market]) })).toBe('optional');
      expect(route.signingPath).toBe(path);
    }
    expect(matchHmacRoute('post', '/queries').entry?.bodyInSignature).toBe(true);
    expect(matchHmacRoute('POST', '/queries/q1/cancel').entry?.bodyInSignature).toBe(false);
  });
});
