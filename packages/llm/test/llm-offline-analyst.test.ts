import { beforeAll, describe, expect, it } from 'vitest';
import { type AnalysisType, type ChatTurn, OFFLINE_NOTICE, OfflineAnalyst } from '../src/index.js';
import type { SqliteMarketData } from '@eql/market-data';
import { DAY, DEMO_END, demoItems, demoMarket } from './support/demo-market.js';

let market: SqliteMarketData;
let analyst: OfflineAnalyst;
const window = { from: DEMO_END - DAY, to: DEMO_END };

beforeAll(() => {
  market = demoMarket();
  analyst = new OfflineAnalyst(market);
});

const turn = (analysisType: AnalysisType, extra: Partial<ChatTurn> = {}): ChatTurn => ({ analysisType, speed: 'fast', history: [], now: DEMO_END, ...extra });
const ask = async (analysisType: AnalysisType, extra: Partial<ChatTurn> = {}) => (await analyst.chat(turn(analysisType, extra))).message;

/** Markdown link targets of a reply. */
const linksOf = (text: string) => [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);

/** Every link the data knows: post links and news URLs. */
function knownLinks(): Set<string> {
  const out = new Set<string>();
  for (const item of demoItems()) {
    if (item.kind === 'post') out.add(item.link);
    if (item.kind === 'news') out.add(item.url);
  }
  return out;
}

/** Post texts of the window long enough that quoting them would be copying. */
function windowTexts(): string[] {
  return market.postsInRange({ range: { from: DEMO_END - 7 * DAY, to: DEMO_END }, limit: 5_000 }).map((post) => post.text).filter((text) => text.length >= 40);
}

const ALL_TURNS: Array<[AnalysisType, Partial<ChatTurn>]> = [
  ['chat', { message: 'What is going on with $GLORP and @gamma_maxi? Any news on ETF inflows?' }],
  ['macro', {}],
  ['summary', { message: 'memecoin' }],
  ['summary', {}],
  ['tokenIntro', { assetMetadata: { symbol: '$glorp' } }],
  ['tokenAnalysis', { assetMetadata: { symbol: 'HYPE' } }],
  ['accountAnalysis', { assetMetadata: { username: 'gamma_maxi' } }],
];

describe('OfflineAnalyst chat on the seeded demo dataset', () => {
  it('every analysis type opens with the offline notice, links only to known posts and news, and never copies a post', async () => {
    const links = knownLinks();
    const texts = windowTexts();
    for (const [type, extra] of ALL_TURNS) {
      const reply = await ask(type, extra);
      expect(reply.startsWith(`${OFFLINE_NOTICE}\n`), type).toBe(true);
      expect(reply.length, type).toBeGreaterThan(OFFLINE_NOTICE.length + 50);
      const found = linksOf(reply);
      expect(found.length, type).toBeGreaterThan(0);
      for (const link of found) expect(links.has(link), `${type}: ${link}`).toBe(true);
      for (const text of texts) expect(reply.includes(text), `${type} copies "${text}"`).toBe(false);
    }
  });

  it('is deterministic: the same data and turn give the same text, also from another instance', async () => {
    const other = new OfflineAnalyst(demoMarket());
    for (const [type, extra] of ALL_TURNS) {
      const first = await ask(type, extra);
      expect(await ask(type, extra)).toBe(first);
      expect((await other.chat(turn(type, extra))).message).toBe(first);
    }
  });

  it('speed and history do not change an offline answer', async () => {
    const plain = await ask('tokenIntro', { assetMetadata: { symbol: 'SOL' } });
    const other = await ask('tokenIntro', { assetMetadata: { symbol: 'SOL' }, speed: 'expert', history: [{ role: 'user', content: 'earlier' }] });
    expect(other).toBe(plain);
  });

  it('tokenAnalysis states the token stats of the window: mentions now and before, accounts, top posts, daily counts', async () => {
    const stats = market.tokenStats('HYPE', window);
    const reply = await ask('tokenAnalysis', { assetMetadata: { symbol: '$hype' } });
    expect(reply).toContain('$HYPE');
    expect(reply).toContain(`**${stats.mentions} posts** by ${stats.uniqueAccounts} accounts (${stats.smartAccounts} smart)`);
    expect(reply).toContain(`${stats.previousMentions} in the 24h before`);
    for (const post of stats.topPosts) expect(reply).toContain(`(${post.link})`);
    for (const item of stats.news) expect(reply).toContain(item.url);
    const week = market.postsInRange({ range: { from: DEMO_END - 7 * DAY, to: DEMO_END }, token: 'HYPE', limit: 10_000 });
    const lastDay = week.filter((post) => post.mentionedAt >= DEMO_END - DAY).length;
    expect(reply).toContain(`| 2026-11-15 | ${lastDay} |`);
    expect(reply).toMatch(/Tone \(cue words\)/);
  });

  it('tokenIntro resolves a contract address to its token and lists the contracts', async () => {
    const [contract] = market.tokenStats('GLORP', window).contracts;
    expect(contract).toBeDefined();
    const address = contract?.contractAddress as string;
    expect(market.tokenOfContract(address)).toBe('GLORP');
    const reply = await ask('tokenIntro', { assetMetadata: { chain: 'solana', contractAddress: address } });
    expect(reply).toContain('$GLORP');
    expect(reply).toContain(`Resolved from contract \`${address}\` (solana)`);
    expect(reply).toContain(`\`${address}\``);
  });

  it('tokenIntro of an unknown contract says the data cannot tell', async () => {
    const reply = await ask('tokenIntro', { assetMetadata: { chain: 'base', contractAddress: '0x000000000000000000000000000000000000dead' } });
    expect(reply).toContain(OFFLINE_NOTICE);
    expect(reply).toContain('No post in the local data names the contract');
  });

  it('accountAnalysis gives the smart stats, the tokens it talks about and its recent posts', async () => {
    const stats = market.accountStats('gamma_maxi');
    expect(stats).toBeDefined();
    const reply = await ask('accountAnalysis', { assetMetadata: { username: '@gamma_maxi' } });
    expect(reply).toContain('@gamma_maxi');
    expect(reply).toContain(`${stats?.smartFollowingCount} of them smart accounts`);
    expect(reply).toContain(`${stats?.posts} stored posts`);
    const recent = market.postsInRange({ range: { from: DEMO_END - 7 * DAY, to: DEMO_END }, accountName: 'gamma_maxi', limit: 100 });
    const tokens = new Map<string, number>();
    for (const post of recent) for (const token of post.tokens) tokens.set(token, (tokens.get(token) ?? 0) + 1);
    const top = [...tokens.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    expect(reply).toContain(`$${top?.[0]} (${top?.[1]})`);
    const newest = [...recent].sort((a, b) => b.mentionedAt - a.mentionedAt)[0];
    expect(reply).toContain(`(${newest?.link})`);
  });

  it('an unknown account is said to be unknown', async () => {
    expect(await ask('accountAnalysis', { assetMetadata: { username: 'nobody_here_42' } })).toContain('no account @nobody_here_42');
  });

  it('macro names the most discussed trending tokens, the narratives with sources, and the news of the window', async () => {
    const reply = await ask('macro');
    const trending = market.trendingTokens({ current: window, previous: { from: window.from - DAY, to: window.from }, minMentions: 3, paging: { page: 1, pageSize: 15 } }).rows;
    const leader = [...trending].sort((a, b) => b.current_count - a.current_count || (a.token < b.token ? -1 : 1))[0];
    expect(reply).toContain(`Most discussed: $${leader?.token}`);
    expect(reply).toMatch(/\*\*Most discussed narratives\*\*/);
    expect(reply).toMatch(/\n1\. .+ posts by .+ accounts/);
    for (const item of market.newsInRange({ range: window, limit: 5 })) expect(reply).toContain(item.url);
  });

  it('summary about a topic reports the matching posts and groups them', async () => {
    const matching = market.postsInRange({ range: window, keywords: ['memecoin'], limit: 500 });
    const reply = await ask('summary', { message: 'memecoin' });
    expect(reply).toContain('posts about "memecoin"');
    expect(reply).toContain(`${matching.length} posts of the 24h`);
    expect(reply).toMatch(/What they are about:\n1\. /);
  });

  it('chat looks up the tokens, accounts and topic words a message names, and the trending tokens', async () => {
    const reply = await ask('chat', { message: 'What is going on with $GLORP and @gamma_maxi? Any news on ETF inflows?' });
    expect(reply).toContain('### Token $GLORP');
    expect(reply).toContain('### Account @gamma_maxi');
    expect(reply).toContain('### Posts about "etf" and "inflows"');
    expect(reply).toContain('### Trending in the 24h');
  });

  it('chat finds tickers written in capitals only when the data knows them, and names what it does not know', async () => {
    const reply = await ask('chat', { message: 'Compare SOL with FOOBAR please, and @ghost_account_x' });
    expect(reply).toContain('### Token $SOL');
    expect(reply).not.toContain('$FOOBAR');
    expect(reply).toContain('knows nothing of @ghost_account_x');
  });

  it('a chat message without anything to look up gets the trending tokens and says why', async () => {
    const reply = await ask('chat', { message: 'hello there' });
    expect(reply).toContain('names no token, account or topic word');
    expect(reply).toContain('| token | posts now | before | change |');
  });

  it('questions about what moves or trends are general questions, not a search for the word', async () => {
    for (const message of ['What is moving in crypto today?', "What's trending? Any hot movers?", 'what are people talking about']) {
      const reply = await ask('chat', { message });
      expect(reply, message).not.toContain('### Posts about');
      expect(reply, message).toContain('| token | posts now | before | change |');
    }
  });
});
