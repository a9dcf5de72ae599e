import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { firstValueFrom, from } from 'rxjs';
import type { TriggerContext } from '@eql/core';
import { ModelAnalyst, ModelError, OpenAiChatModel } from '../src/index.js';
import type { SqliteMarketData } from '@eql/market-data';
import { OpenAiStub, type StubRequest } from './support/openai-stub.js';
import { DAY, DEMO_END, demoMarket, HOUR } from './support/demo-market.js';

const KEY = 'sk-model-analyst-test-0123456789abcdef';
const HACK_DAY = DEMO_END - 28 * DAY + 19 * DAY + 14 * HOUR;

let stub: OpenAiStub;
let market: SqliteMarketData;
let analyst: ModelAnalyst;
const window = { from: DEMO_END - DAY, to: DEMO_END };

beforeAll(async () => {
  stub = await OpenAiStub.start({ apiKey: KEY, models: ['fast-m', 'expert-m'] });
  market = demoMarket();
  analyst = new ModelAnalyst(new OpenAiChatModel({ baseURL: stub.baseURL, apiKey: KEY, fastModel: 'fast-m', expertModel: 'expert-m', timeoutMs: 5_000, maxRetries: 0 }), market);
});

afterAll(async () => {
  await stub.close();
});

afterEach(() => {
  stub.reset();
});

/** The JSON context of the last user message of a request (its data block). */
function contextOf(request: StubRequest | undefined): Record<string, unknown> {
  const user = [...(request?.messages ?? [])].reverse().find((message) => message.role === 'user')?.content ?? '';
  const match = /<data name="(?:context|evidence|posts)">\n(.*)\n<\/data>/.exec(user);
  return JSON.parse(match?.[1] ?? 'null') as Record<string, unknown>;
}

const trigger: TriggerContext = {
  queryId: 'q-1',
  title: 'HYPE momentum',
  triggerIndex: 1,
  firedAt: DEMO_END,
  conditionStates: [{ path: '/AND/0', source: 'price', method: 'current', holds: true, value: 31.5, threshold: 30 }],
};

describe('ModelAnalyst chat: the prompt carries the local facts of the analysis type', () => {
  it('tokenAnalysis: token stats, top posts by id and link, daily counts; fast model; ground rules in the system prompt', async () => {
    stub.respondWith(() => ({ content: 'HYPE is steady.' }));
    const reply = await analyst.chat({ analysisType: 'tokenAnalysis', speed: 'fast', history: [], now: DEMO_END, assetMetadata: { symbol: '$hype' } });
    expect(reply.message).toBe('HYPE is steady.');
    const request = stub.requests[0];
    expect(request?.model).toBe('fast-m');
    expect(request?.messages[0]?.role).toBe('system');
    expect(request?.messages[0]?.content).toContain('Never copy the text of a post');
    expect(request?.messages[0]?.content).toContain('Analyse the token');
    const stats = market.tokenStats('HYPE', window);
    const token = contextOf(request).token as Record<string, unknown>;
    expect(token).toMatchObject({ token: 'HYPE', mentions: stats.mentions, mentionsInWindowBefore: stats.previousMentions, uniqueAccounts: stats.uniqueAccounts, smartAccounts: stats.smartAccounts });
    expect((token.topPosts as Array<{ id: string; link: string }>).map((post) => [post.id, post.link])).toEqual(stats.topPosts.map((post) => [post.tweetId, post.link]));
    expect((token.postsPerDay as unknown[]).length).toBe(7);
    expect(stub.lastUserText()).toContain('REQUEST:\nAnalyse this token.');
  });

  it('accountAnalysis on the expert model: smart stats and recent posts', async () => {
    await analyst.chat({ analysisType: 'accountAnalysis', speed: 'expert', history: [], now: DEMO_END, assetMetadata: { username: 'gamma_maxi' } });
    expect(stub.requests[0]?.model).toBe('expert-m');
    const stats = market.accountStats('gamma_maxi');
    const account = contextOf(stub.requests[0]).account as Record<string, unknown>;
    expect(account.smartStats).toEqual({ averageReach: stats?.averageReach, averageEngagement: stats?.averageEngagement, smartFollowingCount: stats?.smartFollowingCount, storedPosts: stats?.posts });
    expect((account.recentPosts as unknown[]).length).toBeGreaterThan(0);
  });

  it('macro: trending tokens, narratives with tweet ids, news', async () => {
    await analyst.chat({ analysisType: 'macro', speed: 'fast', history: [], now: DEMO_END });
    const view = contextOf(stub.requests[0]).market as Record<string, unknown>;
    const trending = market.trendingTokens({ current: window, previous: { from: window.from - DAY, to: window.from }, minMentions: 3, paging: { page: 1, pageSize: 15 } }).rows;
    expect(view.trendingTokens).toEqual(trending);
    const narratives = view.narrativesBySharedWords as Array<{ tweet_ids: string[] }>;
    expect(narratives.length).toBeGreaterThan(0);
    expect((view.news as Array<{ url: string }>).map((item) => item.url)).toEqual(market.newsInRange({ range: window, limit: 5 }).map((item) => item.url));
  });

  it('summary: the posts about the message topic', async () => {
    await analyst.chat({ analysisType: 'summary', message: 'memecoin', speed: 'fast', history: [], now: DEMO_END });
    const recent = contextOf(stub.requests[0]).recent as Record<string, unknown>;
    expect(recent.keywords).toEqual(['memecoin']);
    expect(recent.matchingPosts).toBe(market.postsInRange({ range: window, keywords: ['memecoin'], limit: 500 }).length);
  });

  it('chat: the tokens and accounts the message names, the history before the new message, the message last', async () => {
    const history = [
      { role: 'user' as const, content: 'earlier question' },
      { role: 'assistant' as const, content: 'earlier answer' },
    ];
    await analyst.chat({ analysisType: 'chat', message: 'How is $GLORP doing, and what does @gamma_maxi say?', speed: 'fast', history, now: DEMO_END });
    const messages = stub.requests[0]?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[1]?.content).toBe('earlier question');
    const context = contextOf(stub.requests[0]);
    expect((context.tokensNamed as Array<{ token: string }>).map((token) => token.token)).toEqual(['GLORP']);
    expect((context.accountsNamed as Array<{ username: string }>).map((account) => account.username)).toEqual(['gamma_maxi']);
    expect(stub.lastUserText()).toMatch(/REQUEST:\nHow is \$GLORP doing/);
  });

  it('a reply that copies a post is given back with the link instead of the text', async () => {
    const top = market.tokenStats('HYPE', window).topPosts.find((post) => post.text.split(/\s+/).length >= 9);
    expect(top).toBeDefined();
    const words = (top?.text ?? '').split(/\s+/).slice(0, 12).join(' ');
    stub.respondWith(() => ({ content: `Key post: "${words}" says it all.` }));
    const reply = await analyst.chat({ analysisType: 'tokenIntro', speed: 'fast', history: [], now: DEMO_END, assetMetadata: { symbol: 'HYPE' } });
    expect(reply.message).not.toContain(words);
    expect(reply.message).toContain(`[post](${top?.link})`);
    expect(reply.message).toMatch(/^Key post: "/);
  });

  it('an upstream failure is a ModelError', async () => {
    stub.enqueue({ status: 503 });
    await expect(analyst.chat({ analysisType: 'macro', speed: 'fast', history: [], now: DEMO_END })).rejects.toMatchObject({ name: 'ModelError', code: 'LLM_UPSTREAM_ERROR', status: 503 });
  });
});

describe('ModelAnalyst judge', () => {
  const judge = (query: string, speed: 'fast' | 'expert' | 'adaptive' = 'fast', at = HACK_DAY + DAY) => firstValueFrom(from(analyst.provider.judge({ query, speed, at })));

  it('asks for JSON with the evidence of the window and parses the verdict', async () => {
    stub.respondWith(() => ({ content: '{"confidence": 87, "reasoning": "Many reports of the FlowEx exploit."}' }));
    expect(await judge('Was FlowEx hacked?')).toEqual({ confidence: 87, reasoning: 'Many reports of the FlowEx exploit.' });
    const request = stub.requests[0];
    expect(request?.response_format).toEqual({ type: 'json_object' });
    expect(stub.lastUserText()).toContain('PREDICATE: Was FlowEx hacked?');
    const evidence = contextOf(request) as { window: { from: string; to: string }; items: Array<{ excerpt: string; at: string }> };
    expect(evidence.window).toEqual({ from: new Date(HACK_DAY).toISOString(), to: new Date(HACK_DAY + DAY).toISOString() });
    expect(evidence.items.length).toBeGreaterThan(5);
    for (const item of evidence.items) {
      expect(item.excerpt.toLowerCase()).toContain('flowex');
      expect(Date.parse(item.at)).toBeGreaterThanOrEqual(HACK_DAY);
    }
  });

  it.each([
    ['{"confidence": 140}', 100],
    ['{"confidence": -5, "reasoning": "no"}', 0],
    ['{"confidence": "72"}', 72],
    ['{"confidence": 0.85}', 85],
    ['Sure! ```json\n{"confidence": 33.4, "reasoning": "weak"}\n```', 33],
    ['My verdict: {"score": 61} as asked', 61],
  ])('reads %j as %i', async (content, expected) => {
    stub.respondWith(() => ({ content }));
    expect((await judge('Is the Fed cutting rates?')).confidence).toBe(expected);
  });

  it.each(['I think it is likely.', '{"reasoning": "no number"}', '{"confidence": "high"}'])('refuses %j with LLM_EMPTY_REPLY', async (content) => {
    stub.respondWith(() => ({ content }));
    await expect(judge('Is the Fed cutting rates?')).rejects.toMatchObject({ code: 'LLM_EMPTY_REPLY' });
    await expect(judge('Is the Fed cutting rates?')).rejects.toBeInstanceOf(ModelError);
  });

  it('adaptive asks the expert model again when the fast verdict is uncertain, not when it is clear', async () => {
    stub.enqueue({ content: '{"confidence": 50}' }, { content: '{"confidence": 91}' });
    expect((await judge('Was FlowEx hacked?', 'adaptive')).confidence).toBe(91);
    expect(stub.requests.map((request) => request.model)).toEqual(['fast-m', 'expert-m']);
    stub.reset();
    stub.enqueue({ content: '{"confidence": 95}' });
    expect((await judge('Was FlowEx hacked?', 'adaptive')).confidence).toBe(95);
    expect(stub.requests.map((request) => request.model)).toEqual(['fast-m']);
  });
});

describe('ModelAnalyst event summaries and narratives', () => {
  const posts = () => market.postsInRange({ range: window, keywords: ['memecoin'], limit: 60 });

  it('keeps only tweet ids among the posts given, links from the data, each post in one group', async () => {
    const given = posts();
    const [a, b, c] = given;
    stub.respondWith(() => ({
      content: JSON.stringify({
        events: [
          { summary: 'Memecoin season talk.', tweetIds: [a?.tweetId, '999999999999', b?.tweetId] },
          { summary: 'Only invented ids.', tweetIds: ['123', 'abc'] },
          { summary: 'Reuses a post.', tweetIds: [b?.tweetId, c?.tweetId] },
        ],
      }),
    }));
    const events = await analyst.eventSummary({ keywords: ['memecoin'], range: window, posts: given, speed: 'fast', limit: 5 });
    expect(events).toEqual([
      { summary: 'Memecoin season talk.', tweetIds: [a?.tweetId, b?.tweetId], sourceLinks: [a?.link, b?.link] },
      { summary: 'Reuses a post.', tweetIds: [c?.tweetId], sourceLinks: [c?.link] },
    ]);
    const shown = contextOf(stub.requests[0]).posts as Array<{ id: string; excerpt: string }>;
    expect(shown).toHaveLength(given.length);
    expect(stub.requests[0]?.response_format).toEqual({ type: 'json_object' });
  });

  it('narratives: the same validation, and at most `limit` groups', async () => {
    const given = posts();
    stub.respondWith(() => ({
      content: JSON.stringify({ narratives: given.slice(0, 4).map((post, index) => ({ narrative: `Theme ${index}`, tweet_ids: [post.tweetId, `fake-${index}`] })) }),
    }));
    const narratives = await analyst.narratives({ range: window, posts: given, speed: 'expert', limit: 3 });
    expect(narratives).toEqual(given.slice(0, 3).map((post, index) => ({ narrative: `Theme ${index}`, tweet_ids: [post.tweetId], source_links: [post.link] })));
    expect(stub.requests[0]?.model).toBe('expert-m');
  });

  it('no posts: no call; a reply without the list is LLM_EMPTY_REPLY', async () => {
    expect(await analyst.narratives({ range: window, posts: [], speed: 'fast', limit: 3 })).toEqual([]);
    expect(stub.requests).toHaveLength(0);
    stub.respondWith(() => ({ content: '{"groups": []}' }));
    await expect(analyst.eventSummary({ keywords: [], range: window, posts: posts(), speed: 'fast', limit: 3 })).rejects.toMatchObject({ code: 'LLM_EMPTY_REPLY' });
  });
});

describe('ModelAnalyst analyze (llm actions)', () => {
  const analyze = (prompt: string, speed: 'fast' | 'expert' | 'adaptive' = 'fast') =>
    firstValueFrom(from(analyst.provider.analyze({ prompt, analysisType: 'tokenAnalysis', speed, assetMetadata: { symbol: 'HYPE' }, trigger })));

  it('sends the trigger and the token facts, and keeps only valid trade signals', async () => {
    stub.respondWith(() => ({
      content: JSON.stringify({
        response: 'HYPE broke out; buying.',
        trades: [
          { side: 'BUY', symbol: '$HYPE', amountUsd: 500, reason: 'breakout' },
          { side: 'hold', symbol: 'HYPE' },
          { side: 'sell', symbol: 'BTC/USDT:USDT', positionSizePercent: 150 },
          { side: 'sell', symbol: 'not a symbol!' },
        ],
      }),
    }));
    const analysis = await analyze('Should I buy HYPE?');
    expect(analysis).toEqual({ response: 'HYPE broke out; buying.', trades: [{ side: 'buy', symbol: 'HYPE', amountUsd: 500, reason: 'breakout' }, { side: 'sell', symbol: 'BTC/USDT:USDT' }] });
    const user = stub.lastUserText();
    expect(user).toContain('"title":"HYPE momentum"');
    expect(user).toContain('"value":31.5');
    expect(user).toContain('PROMPT:\nShould I buy HYPE?');
    expect(user).toContain('"token":"HYPE"');
  });

  it('a reply that is not JSON is the response, with no trades', async () => {
    stub.respondWith(() => ({ content: 'Plain text analysis.' }));
    expect(await analyze('What now?')).toEqual({ response: 'Plain text analysis.', trades: [] });
  });

  it('adaptive: a fast analysis that proposes trades is asked again of the expert model', async () => {
    stub.enqueue({ content: '{"response": "buy", "trades": [{"side": "buy", "symbol": "HYPE"}]}' }, { content: '{"response": "on reflection, wait", "trades": []}' });
    expect(await analyze('Trade HYPE?', 'adaptive')).toEqual({ response: 'on reflection, wait', trades: [] });
    expect(stub.requests.map((request) => request.model)).toEqual(['fast-m', 'expert-m']);
  });
});
