import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryRequest } from '@eql/core';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { restoreMaskedSecrets, SECRET_MASK } from '../src/store/request-secrets.js';
import { at, call, errorCode, json, testHost, type TestHost } from './support/host.js';

// Issue 45, finding 5: a draft read back shows its secrets masked, and an update that sends the mask
// back keeps the stored secret. Whoever holds only the API key must not be able to keep the owner's
// webhook header (or bot token) while pointing it at a destination of their own.

const AUTHORIZATION = 'Bearer owner-credential-5c1d';
const BOT_TOKEN = '123456789:OWNERbotTokenAAAAbbbbCCCCdddd0000';
const OWNER_URL = 'https://hooks.owner.example/eql';
const ATTACKER_URL = 'https://collect.attacker.example/steal';

let host: TestHost;

beforeAll(async () => {
  host = await testHost();
});
afterAll(() => host.close());

const priceAbove = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1_000_000 };
const draftOf = (actions: unknown[]) => ({ title: 'secrets', query: { conditions: { AND: [priceAbove] }, actions, expiresIn: '24h' } });
const webhook = (url: string, headers: Record<string, string> = { Authorization: AUTHORIZATION }) => ({ stepId: 'hook', type: 'webhook', params: { url, headers } });
const bot = (chatId: string | number, botToken = BOT_TOKEN) => ({ stepId: 'bot', type: 'messenger_bot', params: { botToken, chatId, message: 'BTC moved' } });
const llmWith = (action: Record<string, unknown>) => ({ stepId: 'think', type: 'llm', params: { prompt: 'Why?', callback: { action } } });

async function newDraft(key: CreatedKey, body: unknown): Promise<string> {
  const response = await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body });
  expect(response.statusCode, response.body).toBe(200);
  return json(response).draftId as string;
}

/** The draft as its owner reads it back: secrets masked. */
async function readBack(key: CreatedKey, draftId: string): Promise<Record<string, unknown>> {
  const response = await call(host.app, { url: `/v2/auto/queries/drafts/${draftId}`, key });
  expect(response.statusCode).toBe(200);
  return json(response).request as Record<string, unknown>;
}

const update = (key: CreatedKey, draftId: string, body: unknown) => call(host.app, { method: 'POST', url: `/v2/auto/queries/drafts/${draftId}`, key, body });

/** A copy of a request with `edit` applied to its step `index` (or to that step's callback action). */
function edited(request: Record<string, unknown>, index: number, edit: (step: Record<string, unknown>) => void): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
  edit(at(copy, 'query', 'actions', index) as Record<string, unknown>);
  return copy;
}
const paramsOf = (step: Record<string, unknown>) => step.params as Record<string, unknown>;
const callbackParamsOf = (step: Record<string, unknown>) => at(step, 'params', 'callback', 'action', 'params') as Record<string, unknown>;

describe('a masked secret sent back in a draft update', () => {
  it('is refused (400 secret_required, naming its path) when the webhook url changed: the stored draft is unchanged', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, draftOf([webhook(OWNER_URL)]));
    const before = host.store.draftById(draftId);
    const masked = await readBack(key, draftId);
    expect(at(masked, 'query', 'actions', 0, 'params', 'headers', 'Authorization')).toBe(SECRET_MASK);

    const attack = edited(masked, 0, (step) => (paramsOf(step).url = ATTACKER_URL));
    const response = await update(key, draftId, attack);
    expect(response.statusCode, response.body).toBe(400);
    expect(errorCode(response)).toBe('secret_required');
    expect(at(json(response), 'error', 'details')).toEqual([{ path: '/query/actions/0/params/headers/Authorization', message: expect.stringContaining('url') as string }]);
    expect(response.body).not.toContain(AUTHORIZATION);
    expect(host.store.draftById(draftId)).toEqual(before);

    // Sending the secret again is how a destination changes.
    const honest = edited(attack, 0, (step) => (paramsOf(step).headers = { Authorization: 'Bearer the-new-one' }));
    expect((await update(key, draftId, honest)).statusCode).toBe(200);
    expect(at((host.store.draftById(draftId))?.request, 'query', 'actions', 0, 'params')).toEqual({ url: ATTACKER_URL, headers: { Authorization: 'Bearer the-new-one' } });
  });

  it('is kept while its destination is unchanged (other fields edited, the step moved)', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, draftOf([webhook(OWNER_URL, { Authorization: AUTHORIZATION, 'X-Desk': 'eth' }), bot('@owner_alerts')]));
    const masked = await readBack(key, draftId);
    const copy = JSON.parse(JSON.stringify(masked)) as { title: string; query: { actions: Array<Record<string, unknown>> } };
    copy.title = 'secrets, edited';
    copy.query.actions.reverse();
    (copy.query.actions[0]?.params as Record<string, unknown>).message = 'a new message';
    (copy.query.actions[1]?.params as Record<string, unknown>).payload = { note: 'a new payload' };
    const response = await update(key, draftId, copy);
    expect(response.statusCode, response.body).toBe(200);
    const stored = (host.store.draftById(draftId))?.request;
    expect(stored?.title).toBe('secrets, edited');
    expect(at(stored, 'query', 'actions', 0, 'params')).toEqual({ botToken: BOT_TOKEN, chatId: '@owner_alerts', message: 'a new message' });
    expect(at(stored, 'query', 'actions', 1, 'params')).toEqual({ url: OWNER_URL, headers: { Authorization: AUTHORIZATION, 'X-Desk': 'eth' }, payload: { note: 'a new payload' } });
  });

  it('a bot token is refused when the chat changed; the same chat as a number keeps it', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, draftOf([bot('100200300')]));
    const masked = await readBack(key, draftId);
    const attack = await update(key, draftId, edited(masked, 0, (step) => (paramsOf(step).chatId = '@attacker_chat')));
    expect(attack.statusCode).toBe(400);
    expect(errorCode(attack)).toBe('secret_required');
    expect(at(json(attack), 'error', 'details', 0, 'path')).toBe('/query/actions/0/params/botToken');
    expect(attack.body).not.toContain(BOT_TOKEN);

    const same = await update(key, draftId, edited(masked, 0, (step) => (paramsOf(step).chatId = 100200300)));
    expect(same.statusCode, same.body).toBe(200);
    expect(at((host.store.draftById(draftId))?.request, 'query', 'actions', 0, 'params', 'botToken')).toBe(BOT_TOKEN);
  });

  it('is refused when the step changed: another stepId, another type, another header name, or moved out of a callback', async () => {
    const key = await host.newKey();
    const draftId = await newDraft(key, draftOf([webhook(OWNER_URL), llmWith({ type: 'webhook', params: { url: OWNER_URL, headers: { 'X-Api-Key': AUTHORIZATION } } })]));
    const before = host.store.draftById(draftId);
    const masked = await readBack(key, draftId);
    const attacks: Array<[Record<string, unknown>, string]> = [
      [edited(masked, 0, (step) => (step.stepId = 'hook-2')), '/query/actions/0/params/headers/Authorization'],
      [edited(masked, 0, (step) => (paramsOf(step).headers = { 'X-Other': SECRET_MASK })), '/query/actions/0/params/headers/X-Other'],
      // The callback's header sent to the top-level step's twin: another place, even with the same url.
      [edited(masked, 1, (step) => Object.assign(step, { type: 'webhook', params: { url: OWNER_URL, headers: { 'X-Api-Key': SECRET_MASK } } })), '/query/actions/1/params/headers/X-Api-Key'],
      [edited(masked, 1, (step) => (callbackParamsOf(step).url = ATTACKER_URL)), '/query/actions/1/params/callback/action/params/headers/X-Api-Key'],
    ];
    for (const [body, path] of attacks) {
      const response = await update(key, draftId, body);
      expect(response.statusCode, path).toBe(400);
      expect(errorCode(response)).toBe('secret_required');
      expect(at(json(response), 'error', 'details', 0, 'path')).toBe(path);
    }
    expect(host.store.draftById(draftId)).toEqual(before);

    // The callback's header is kept while its own url is unchanged.
    const kept = await update(key, draftId, edited(masked, 1, (step) => (paramsOf(step).prompt = 'Why now?')));
    expect(kept.statusCode, kept.body).toBe(200);
    expect(at((host.store.draftById(draftId))?.request, 'query', 'actions', 1, 'params', 'callback', 'action', 'params', 'headers')).toEqual({ 'X-Api-Key': AUTHORIZATION });
  });

  it('is refused where no secret is stored: a new draft, or a draft update naming a header never given', async () => {
    const key = await host.newKey();
    const fresh = await call(host.app, { method: 'POST', url: '/v2/auto/queries/drafts', key, body: draftOf([bot('@chat', SECRET_MASK)]) });
    expect(fresh.statusCode).toBe(400);
    expect(errorCode(fresh)).toBe('secret_required');
    expect(at(json(fresh), 'error', 'details', 0, 'path')).toBe('/query/actions/0/params/botToken');
    expect((await call(host.app, { url: '/v2/auto/queries/drafts', key })).body).toContain('"drafts":[]');
  });
});

describe('restoreMaskedSecrets (the law)', () => {
  // Small alphabets, so that generated updates often hit stored places, and sometimes with another destination.
  const stepId = fc.constantFrom('a', 'b');
  const url = fc.constantFrom('https://one.example/h', 'https://two.example/h');
  const chatId = fc.constantFrom<string | number>('@one', '@two', 100, '100');
  const header = fc.constantFrom('Authorization', 'X-Key');
  const actionOf = (value: fc.Arbitrary<string>) =>
    fc.oneof(
      fc.record({ type: fc.constant('webhook'), params: fc.record({ url, headers: fc.dictionary(header, value, { maxKeys: 2 }) }) }),
      fc.record({ type: fc.constant('messenger_bot'), params: fc.record({ botToken: value, chatId }) }),
    );
  const stepOf = (value: fc.Arbitrary<string>) =>
    fc.oneof(
      fc.tuple(stepId, actionOf(value)).map(([id, action]) => ({ stepId: id, ...action })),
      fc.tuple(stepId, actionOf(value)).map(([id, action]) => ({ stepId: id, type: 'llm', params: { callback: { action } } })),
    );
  const requestOf = (value: fc.Arbitrary<string>) => fc.array(stepOf(value), { maxLength: 3 }).map((actions) => ({ query: { actions } }));

  /** Every secret of a request with where it is sent: `stepId|place|destination`. */
  function secretsOf(request: unknown): Array<{ value: unknown; where: string }> {
    const out: Array<{ value: unknown; where: string }> = [];
    const visit = (action: Record<string, unknown>, id: string, place: string) => {
      const params = action.params as Record<string, unknown>;
      if (action.type === 'webhook') for (const [name, value] of Object.entries(params.headers as Record<string, unknown>)) out.push({ value, where: `${id}|${place}webhook.${name}|${String(params.url)}` });
      if (action.type === 'messenger_bot') out.push({ value: params.botToken, where: `${id}|${place}bot|${String(params.chatId)}` });
      if (action.type === 'llm') visit(at(action, 'params', 'callback', 'action') as Record<string, unknown>, id, `${place}callback.`);
    };
    for (const step of at(request, 'query', 'actions') as Array<Record<string, unknown>>) visit(step, step.stepId as string, '');
    return out;
  }

  it('a stored secret reaches only the place and destination it was stored for', () => {
    let stored = 0;
    const storedValue = fc.constant('').map(() => `stored-${++stored}`);
    fc.assert(
      fc.property(requestOf(storedValue), requestOf(fc.constantFrom(SECRET_MASK, 'given')), (previous, next) => {
        const result = restoreMaskedSecrets(next, previous as unknown as QueryRequest);
        if (!result.ok) return;
        const homes = new Map(secretsOf(previous).map((entry) => [entry.value, entry.where]));
        for (const entry of secretsOf(result.request)) {
          expect(entry.value).not.toBe(SECRET_MASK);
          if (homes.has(entry.value)) expect(entry.where).toBe(homes.get(entry.value));
        }
      }),
      { numRuns: 500 },
    );
  });
});
