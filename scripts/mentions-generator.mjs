// The seeded generator of market-intelligence data (posts, Telegram messages, news, account profiles)
// behind fixtures/mentions/ and the 1M-post benchmark dataset. Deterministic: the same options give the
// same items, in time order. All names, texts, links and addresses are fictional (links use the
// reserved .example domain, except x.com status links of fictional accounts).
// Used by scripts/generate-mentions.mjs (fixture) and bench/market (benchmark data).

import { mulberry32 } from './seeded-random.mjs';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TWITTER_EPOCH = 1288834974657n;

function rng(seed, salt) {
  const uniform = mulberry32((seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  const normal = () => {
    let u = 0;
    while (u === 0) u = uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
  return {
    uniform,
    normal,
    int: (min, max) => min + Math.floor(uniform() * (max - min + 1)),
    pick: (list) => list[Math.floor(uniform() * list.length)],
    logNormal: (median, sigma) => median * Math.exp(sigma * normal()),
    weighted(entries) {
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let roll = uniform() * total;
      for (const [value, weight] of entries) {
        roll -= weight;
        if (roll <= 0) return value;
      }
      return entries[entries.length - 1][0];
    },
  };
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(bytes) {
  let value = 0n;
  for (const byte of bytes) value = value * 256n + BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE58[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

function solanaAddress(random) {
  for (;;) {
    const address = base58(Array.from({ length: 32 }, () => random.int(0, 255)));
    if (address.length >= 43 && /\d/.test(address) && /[a-z]/.test(address) && /[A-Z]/.test(address)) return address;
  }
}

const evmAddress = (random) => `0x${Array.from({ length: 20 }, () => random.int(0, 255).toString(16).padStart(2, '0')).join('')}`;

/** Tokens: popularity weight and a trend over the span (t from 0 to 1). Memecoins carry a contract. */
const TOKENS = [
  { token: 'BTC', weight: 30, trend: () => 1 },
  { token: 'ETH', weight: 20, trend: () => 1 },
  { token: 'SOL', weight: 14, trend: (t) => 0.8 + 0.5 * t },
  { token: 'HYPE', weight: 5, trend: (t) => (t > 0.88 ? 4 : 1) },
  { token: 'PEPE', weight: 5, trend: (t) => 1.6 - 1.2 * t },
  { token: 'DOGE', weight: 4, trend: () => 1 },
  { token: 'LINK', weight: 3, trend: () => 1 },
  { token: 'ARB', weight: 3, trend: (t) => 1.2 - 0.4 * t },
  { token: 'SUI', weight: 3, trend: () => 1 },
  { token: 'WIF', weight: 3, trend: (t) => 0.7 + 0.8 * t },
  { token: 'BONK', weight: 2, trend: () => 1 },
  { token: 'TAO', weight: 2, trend: (t) => 0.5 + 2 * t },
  { token: 'ONDO', weight: 2, trend: (t) => (t > 0.6 && t < 0.8 ? 3 : 1) },
  { token: 'GLORP', weight: 3, trend: (t) => (t < 0.85 ? 0 : 8), chain: 'solana' },
  { token: 'ZAPCAT', weight: 2, trend: (t) => (t < 0.5 ? 0.2 : 1.5), chain: 'base' },
  { token: 'FROGGY', weight: 2, trend: (t) => 1.5 - t, chain: 'ethereum' },
  { token: 'NEKO', weight: 1, trend: () => 1, chain: 'bsc' },
  { token: 'VOLTA', weight: 2, trend: (t) => (t > 0.7 ? 3 : 0.3), chain: 'solana' },
];

const NARRATIVES = [
  { name: 'etf', tokens: ['BTC', 'ETH'], weight: 4, texts: ['$%T spot ETF inflows hit $%N million today, strongest week in a month', 'ETF flows keep absorbing supply: $%T net inflows of %N million', 'Spot ETF outflows of %N million for $%T, traders watching support'] },
  { name: 'fed', tokens: ['BTC', 'ETH', 'SOL'], weight: 3, texts: ['Fed rate cut odds rising after the CPI print, $%T reacting', 'FOMC minutes out: rate cut talk is back, $%T bid', 'Powell sounds cautious on a rate cut, $%T dips %P%'] },
  { name: 'ai', tokens: ['TAO', 'ETH', 'SOL'], weight: 2, texts: ['AI agents are the narrative of the cycle, $%T leading the agent tokens', 'Autonomous AI agents trading onchain, $%T volume up %P%', 'Agent tokens ripping: $%T up %P% this week'] },
  { name: 'memes', tokens: ['SOL', 'WIF', 'BONK', 'PEPE', 'DOGE', 'GLORP', 'ZAPCAT', 'FROGGY', 'NEKO', 'VOLTA'], weight: 6, texts: ['memecoin season is here, $%T sending %P%', '$%T holders up %P%, community is wild', 'New memecoin $%T trending, liquidity at %N k', 'aped into $%T, chart looks like 2021'] },
  { name: 'perps', tokens: ['HYPE', 'SOL', 'ETH'], weight: 3, texts: ['Hyperliquid perp volume record, $%T open interest at %N million', '$%T funding flips positive, perp DEX volumes up %P%', 'Perp traders crowding into $%T longs'] },
  { name: 'rwa', tokens: ['ONDO', 'LINK', 'ETH'], weight: 2, texts: ['RWA tokenization keeps growing: treasuries onchain pass %N million, $%T benefits', '$%T partners on tokenized treasuries', 'Real world assets are the institutional trade, watching $%T'] },
  { name: 'hack', tokens: ['ETH', 'ARB', 'SUI'], weight: 0, texts: ['FlowEx exploit: %N million drained, withdrawals paused, $%T bridge affected', 'FlowEx hack update: attacker moving funds, $%T holders nervous', 'Security alert: FlowEx exploit traced to a bridge bug, $%T'] },
  { name: 'market', tokens: TOKENS.map((t) => t.token), weight: 8, texts: ['$%T looking strong above support, next target +%P%', '$%T breaking out, volume up %P%', '$%T rejected at resistance, careful here', 'accumulating $%T on this dip', '$%T is up %P% in a day, who is selling?'] },
];

const ADJECTIVES = ['quiet', 'alpha', 'degen', 'onchain', 'macro', 'based', 'early', 'patient', 'lunar', 'candle', 'delta', 'gamma', 'sigma', 'silent', 'rapid', 'golden'];
const NOUNS = ['whale', 'owl', 'trader', 'hunter', 'analyst', 'builder', 'miner', 'maxi', 'degen', 'fox', 'wolf', 'tortoise', 'oracle', 'scout', 'ape'];
const NEWS_ACCOUNTS = ['chainwire_news', 'blockdesk', 'ledger_daily', 'defi_dispatch', 'onchain_times', 'market_pulse_news', 'token_report', 'crypto_briefing'];
const NEWS_SOURCES = [['ChainWire', 'chainwire.example'], ['BlockDesk', 'blockdesk.example'], ['Ledger Daily', 'ledgerdaily.example'], ['DeFi Dispatch', 'defidispatch.example']];
const CHANNELS = ['solana_gems', 'base_degens', 'eth_alpha_calls', 'bsc_moonshots', 'whale_alerts', 'degen_signals'];

/** Fictional accounts: smart (followed by smart money), verified, crypto-social, and news accounts. */
function makeAccounts(random, count) {
  const accounts = [];
  const seen = new Set();
  while (accounts.length < count) {
    const name = `${random.pick(ADJECTIVES)}_${random.pick(NOUNS)}${random.uniform() < 0.5 ? random.int(1, 99) : ''}`;
    if (seen.has(name)) continue;
    seen.add(name);
    const smart = accounts.length < Math.round(count * 0.12);
    const followers = Math.round(random.logNormal(smart ? 120_000 : 6_000, 1.1));
    accounts.push({ kind: 'account', username: name, isVerified: smart ? random.uniform() < 0.8 : random.uniform() < 0.15, isSmart: smart, isCt: random.uniform() < 0.6, isNews: false, followers, smartFollowingCount: Math.round(smart ? random.logNormal(60, 0.6) : random.logNormal(3, 1)) });
  }
  for (const name of NEWS_ACCOUNTS) accounts.push({ kind: 'account', username: name, displayName: name.replace(/_/g, ' '), isVerified: true, isSmart: false, isCt: true, isNews: true, followers: Math.round(random.logNormal(300_000, 0.5)), smartFollowingCount: random.int(20, 120) });
  return accounts;
}

function snowflake(at, sequence) {
  return (((BigInt(at) - TWITTER_EPOCH) << 22n) | BigInt(sequence & 0x3fffff)).toString();
}

const fill = (template, token, random) => template.replace(/%T/g, token).replace(/%N/g, String(random.int(5, 900))).replace(/%P/g, String(random.int(3, 60)));

/** Intensity of activity in a day (UTC): quieter at night. */
const diurnal = (at) => 0.55 + 0.45 * Math.sin(((at % DAY) / DAY) * 2 * Math.PI - Math.PI / 2 + 0.6);

/**
 * Yields the items of a dataset, account profiles first, then posts, Telegram messages and news in
 * time order. Options: seed, posts, telegram, news, accounts, days, end (epoch ms of the end).
 */
export function* generateMentions(options = {}) {
  const { seed = 20261116, posts = 6000, telegram = 1500, news = 300, accountCount = 240, days = 28, end = Date.parse('2026-11-16T00:00:00Z') } = options;
  const start = end - days * DAY;
  const random = rng(seed, 1);
  const accounts = makeAccounts(rng(seed, 2), accountCount);
  yield* accounts;
  const authors = accounts.filter((account) => !account.isNews);
  const newsAccounts = accounts.filter((account) => account.isNews);
  const addressRandom = rng(seed, 3);
  const contractOf = new Map(TOKENS.filter((t) => t.chain).map((t) => [t.token, t.chain === 'solana' ? solanaAddress(addressRandom) : evmAddress(addressRandom)]));
  const chainOf = new Map(TOKENS.filter((t) => t.chain).map((t) => [t.token, t.chain]));
  const hackDay = start + Math.floor(days * 0.7) * DAY + 14 * HOUR;

  // Instants: uniform over the span, thinned by the daily cycle, sorted.
  const instants = (count, stream) => {
    const list = [];
    while (list.length < count) {
      const at = start + Math.floor(stream.uniform() * (end - start));
      if (stream.uniform() < diurnal(at)) list.push(at);
    }
    return list.sort((a, b) => a - b);
  };

  const tokenAt = (t, candidates) => random.weighted(TOKENS.filter((entry) => candidates.includes(entry.token)).map((entry) => [entry.token, entry.weight * entry.trend(t)]).filter(([, w]) => w > 0)) ?? 'BTC';
  const narrativeAt = (at) => random.weighted(NARRATIVES.map((n) => [n, n.name === 'hack' ? (at >= hackDay && at < hackDay + 2 * DAY ? 12 : 0) : n.weight]));

  const timeline = [];
  const original = [];
  let sequence = 0;
  for (const at of instants(posts, rng(seed, 4))) {
    const t = (at - start) / (end - start);
    const repost = original.length > 20 && random.uniform() < 0.14;
    const author = random.uniform() < 0.04 ? random.pick(newsAccounts) : random.pick(authors);
    if (repost) {
      const source = original[original.length - 1 - random.int(0, Math.min(200, original.length - 1))];
      const id = snowflake(at, sequence++);
      timeline.push({ at, item: { kind: 'post', tweetId: id, link: source.link, username: author.username, isVerified: author.isVerified, text: `RT @${source.username}: ${source.text}`, mentionedAt: new Date(at).toISOString(), type: 'repost', likeCount: 0, repostCount: 0, viewCount: random.int(0, 40), quoteCount: 0, replyCount: 0, bookmarkCount: 0, repostBreakdown: { smart: 0, ct: 0 } } });
      continue;
    }
    const narrative = narrativeAt(at);
    const token = tokenAt(t, narrative.tokens);
    let text = fill(random.pick(narrative.texts), token, random);
    if (contractOf.has(token) && random.uniform() < 0.35) text += ` CA: ${contractOf.get(token)}${chainOf.get(token) === 'solana' ? '' : ` (${chainOf.get(token)})`}`;
    if (random.uniform() < 0.25) text += ` ${random.pick(['$BTC', '$ETH', '$SOL', 'ETH', 'bitcoin'])} ${random.pick(['holding up', 'looks heavy', 'still king', 'leading'])}`;
    const type = random.uniform() < 0.07 ? 'quote' : random.uniform() < 0.05 ? 'reply' : 'post';
    const heat = 1 + (narrative.name === 'hack' ? 3 : 0) + (TOKENS.find((entry) => entry.token === token)?.trend(t) ?? 1) / 2;
    const views = Math.round(author.followers * (0.05 + 0.5 * random.uniform()) * heat);
    const likes = Math.round(views * (0.004 + 0.03 * random.uniform()));
    const reposts = Math.round(likes * (0.08 + 0.25 * random.uniform()));
    const id = snowflake(at, sequence++);
    const post = { kind: 'post', tweetId: id, link: `https://x.com/${author.username}/status/${id}`, username: author.username, isVerified: author.isVerified, text, mentionedAt: new Date(at).toISOString(), type, likeCount: likes, repostCount: reposts, viewCount: views, quoteCount: Math.round(reposts * 0.2 * random.uniform()), replyCount: Math.round(likes * 0.25 * random.uniform()), bookmarkCount: Math.round(likes * 0.12 * random.uniform()), repostBreakdown: { smart: Math.round(reposts * (author.isSmart ? 0.25 : 0.05) * random.uniform()), ct: Math.round(reposts * 0.5 * random.uniform()) } };
    original.push(post);
    timeline.push({ at, item: post });
  }

  const tg = rng(seed, 5);
  let tgId = 0;
  for (const at of instants(telegram, rng(seed, 6))) {
    const t = (at - start) / (end - start);
    const memecoins = TOKENS.filter((entry) => entry.chain).map((entry) => [entry.token, entry.weight * entry.trend(t)]).filter(([, w]) => w > 0);
    const token = memecoins.length > 0 && tg.uniform() < 0.8 ? tg.weighted(memecoins) : tg.pick(['BTC', 'ETH', 'SOL']);
    const contract = contractOf.get(token);
    const channel = tg.pick(CHANNELS);
    const text = contract
      ? `${tg.pick(['🚀 New call', '👀 Watching', '🔥 Trending', '💎 Gem alert'])}: $${token}\nCA: ${contract}\nChain: ${chainOf.get(token)}\nLiquidity ${tg.int(20, 900)}k, holders ${tg.int(300, 20000)}`
      : `${tg.pick(['Whale alert', 'Market update', 'Flows'])}: $${token} ${tg.pick(['moving', 'bid', 'under pressure'])}, ${tg.int(1, 90)}M on exchanges`;
    timeline.push({ at, item: { kind: 'telegram', id: `${channel}/${++tgId}`, channel, text, postedAt: new Date(at).toISOString(), views: Math.round(tg.logNormal(2_000, 0.9)) } });
  }

  const nw = rng(seed, 7);
  const headlines = {
    etf: ['Spot %T ETFs record $%N million of daily inflows', '%T ETF outflows reach $%N million as traders de-risk'],
    fed: ['Fed signals a rate cut is on the table at the next FOMC meeting', 'Inflation cools, markets price a rate cut; %T rises'],
    ai: ['AI agent tokens surge as %T volumes climb', 'Autonomous AI agents reach $%N million onchain volume'],
    memes: ['Memecoin mania: %T volumes jump on Solana DEXs', 'New memecoin %T draws $%N million in a day'],
    perps: ['Hyperliquid perp volumes hit a record; %T open interest at $%N million', 'Perp DEX competition heats up as %T funding turns positive'],
    rwa: ['Tokenized treasuries pass $%N million; %T among the beneficiaries', 'Asset manager tokenizes a money market fund on %T'],
    hack: ['FlowEx pauses withdrawals after a $%N million exploit', 'FlowEx exploit: attacker bridges funds through %T'],
    market: ['%T rallies %P% as traders return', 'Crypto markets slip; %T down %P%'],
  };
  let newsId = 0;
  for (const at of instants(news, rng(seed, 8))) {
    const narrative = narrativeAt(at);
    const token = tokenAt((at - start) / (end - start), narrative.tokens);
    const title = fill(nw.pick(headlines[narrative.name]), token, nw);
    const [source, domain] = nw.pick(NEWS_SOURCES);
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
    const id = `news-${++newsId}`;
    timeline.push({ at, item: { kind: 'news', id, url: `https://${domain}/${slug}-${newsId}`, title, text: `${title}. ${fill(nw.pick(narrative.texts), token, nw).replace(/\$/g, '')}.`, source, publishedAt: new Date(at).toISOString() } });
    if (nw.uniform() < 0.6) {
      const account = nw.pick(newsAccounts);
      const postId = snowflake(at + 1000, sequence++);
      const views = Math.round(account.followers * (0.02 + 0.1 * nw.uniform()));
      const likes = Math.round(views * 0.01);
      timeline.push({ at: at + 1000, item: { kind: 'post', tweetId: postId, link: `https://x.com/${account.username}/status/${postId}`, username: account.username, isVerified: true, text: `${title} $${token} https://${domain}/${slug}-${newsId}`, mentionedAt: new Date(at + 1000).toISOString(), type: 'post', likeCount: likes, repostCount: Math.round(likes * 0.2), viewCount: views, quoteCount: 0, replyCount: Math.round(likes * 0.1), bookmarkCount: Math.round(likes * 0.05), repostBreakdown: { smart: 0, ct: Math.round(likes * 0.05) } } });
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  for (const entry of timeline) yield entry.item;
}

export const MENTIONS_FIXTURE_END = Date.parse('2026-11-16T00:00:00Z');
