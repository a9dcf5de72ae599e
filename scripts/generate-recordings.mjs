#!/usr/bin/env node
// Generates the deterministic recordings of fixtures/recordings/ (same bytes on every run):
//   market-3d.jsonl  3 days of minute prices (BTC, ETH, SOL) with posts, news and recorded LLM verdicts
//   btc-1d.jsonl     the BTC minute prices of day 2 of market-3d only, for fast tests
//   README.md        the format, the seed and the notable moments, computed from the generated data
// Usage: node scripts/generate-recordings.mjs [--quiet]   (prints the notable moments unless --quiet)
// Prices follow a geometric Brownian motion with a correlated market factor and scheduled regimes
// (drift and volatility per period); the script checks that the moments tests rely on happen and exits
// 1 when they do not. The texts of posts and news are fictional; FlowEx and Meridian Finance are made up.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from './seeded-random.mjs';

const SEED = 20260105;
const START = Date.parse('2026-01-05T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAYS = 3;
const MINUTES = DAYS * 1440;
const outDir = fileURLToPath(new URL('../fixtures/recordings/', import.meta.url));
const quiet = process.argv.includes('--quiet');

// ---------------------------------------------------------------- randomness

/** A seeded stream: uniforms, standard normals (Box-Muller) and integers. One stream per purpose. */
function stream(salt) {
  const uniform = mulberry32((SEED ^ Math.imul(salt, 0x9e3779b1)) >>> 0);
  let spare;
  return {
    uniform,
    normal() {
      if (spare !== undefined) {
        const value = spare;
        spare = undefined;
        return value;
      }
      let u = 0;
      while (u === 0) u = uniform();
      const v = uniform();
      const radius = Math.sqrt(-2 * Math.log(u));
      spare = radius * Math.sin(2 * Math.PI * v);
      return radius * Math.cos(2 * Math.PI * v);
    },
    int(min, max) {
      return min + Math.floor(uniform() * (max - min + 1));
    },
  };
}

// ---------------------------------------------------------------- time and formatting

/** Epoch ms of `d{day} HH:MM[:SS]`, day 1 being 2026-01-05 (UTC). */
function t(text) {
  const match = /^d(\d) (\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!match) throw new Error(`bad time ${text}`);
  const [, day, hours, minutes, seconds = '0'] = match;
  return START + (Number(day) - 1) * DAY + Number(hours) * HOUR + Number(minutes) * MINUTE + Number(seconds) * 1000;
}

/** Canonical recording time: UTC ISO 8601, milliseconds only when not zero (as serializeRecording). */
function iso(at) {
  const text = new Date(at).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

/** `2026-01-06 14:05` for tables. */
const when = (at) => iso(at).slice(0, 16).replace('T', ' ');
const round = (value, digits) => Math.round(value * 10 ** digits) / 10 ** digits;

/** 105234.5 -> "105,234.50" without locale data, so the output never depends on the machine. */
function money(value, digits = 2) {
  const [whole, fraction] = value.toFixed(digits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
const pct = (value) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
/** A size of a change without its sign, for texts that say up or down. */
const size = (value) => `${Math.abs(value * 100).toFixed(1)}%`;
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 60).replace(/^-|-$/g, '');

// ---------------------------------------------------------------- prices

/**
 * Regimes per symbol: from a time, a total log return spread over the period until the next regime
 * (the drift), and a volatility multiplier. Minute volatilities: BTC 0.06%, ETH 0.08%, SOL 0.11%
 * (about 43%, 58% and 80% a year); ETH and SOL share a market factor with BTC (correlation ~0.6).
 */
const ASSETS = [
  {
    symbol: 'BTC', start: 100_000, sigma: 0.0006, volume: 9.5,
    regimes: [
      ['d1 00:00', 0.006, 1.0],
      ['d1 13:30', -0.008, 1.3], // US open chop
      ['d1 16:00', 0.009, 0.9],
      ['d2 00:00', 0.004, 0.8],
      ['d2 08:00', 0.012, 1.0], // ETF inflows
      ['d2 13:30', 0.038, 1.6], // the rally through 105,000
      ['d2 17:00', 0.008, 1.2],
      ['d2 22:00', -0.005, 0.9],
      ['d3 02:45', -0.015, 1.8], // Meridian exploit
      ['d3 04:00', -0.005, 1.0],
      ['d3 09:00', -0.03, 2.0], // FlowEx halts withdrawals
      ['d3 12:00', -0.005, 1.3],
      ['d3 17:30', 0.018, 1.1], // withdrawals resume
    ],
  },
  {
    symbol: 'ETH', start: 3_500, sigma: 0.0008, volume: 160, beta: 0.75,
    regimes: [
      ['d1 00:00', 0.003, 1.0],
      ['d1 13:30', -0.005, 1.3],
      ['d1 16:00', 0.006, 1.0],
      ['d2 08:00', 0.025, 1.3],
      ['d2 17:00', 0.003, 1.0],
      ['d2 22:00', -0.008, 1.0],
      ['d3 02:45', -0.04, 2.5], // Meridian exploit: the exploiter dumps ETH
      ['d3 03:30', -0.01, 1.4],
      ['d3 09:00', -0.05, 2.2], // FlowEx
      ['d3 12:30', -0.005, 1.4],
      ['d3 17:30', 0.02, 1.2],
    ],
  },
  {
    symbol: 'SOL', start: 200, sigma: 0.0011, volume: 1900, beta: 0.75,
    regimes: [
      ['d1 00:00', -0.015, 1.0],
      ['d1 20:30', 0.05, 3.0], // SEC approves spot Solana ETFs
      ['d1 21:00', 0.08, 1.2], // steady climb: RSI(14, 1h) above 70
      ['d2 10:00', -0.01, 1.0],
      ['d2 14:00', 0.015, 1.0],
      ['d2 20:00', -0.03, 1.0], // slow bleed then the day-3 sell-off: RSI below 30
      ['d3 02:45', -0.04, 2.0],
      ['d3 04:00', -0.03, 1.2],
      ['d3 09:00', -0.06, 2.0],
      ['d3 13:00', -0.02, 1.3],
      ['d3 18:00', 0.02, 1.2],
    ],
  },
];

/** Relative activity by UTC hour: an Asian morning bump and the US session peak. */
const diurnal = (hour) => 0.75 + 0.35 * Math.exp(-((hour - 15) ** 2) / 18) + 0.15 * Math.exp(-((hour - 2) ** 2) / 8);

function simulatePrices() {
  const market = stream(1);
  const idiosyncratic = ASSETS.map((_, index) => stream(10 + index));
  const volumes = ASSETS.map((_, index) => stream(20 + index));
  const plans = ASSETS.map((asset) => {
    const drift = new Float64Array(MINUTES);
    const vol = new Float64Array(MINUTES);
    asset.regimes.forEach(([from, total, multiplier], index) => {
      const next = asset.regimes[index + 1];
      const a = (t(from) - START) / MINUTE;
      const b = next ? (t(next[0]) - START) / MINUTE : MINUTES;
      for (let m = a; m < b; m += 1) {
        drift[m] = total / (b - a);
        vol[m] = multiplier;
      }
    });
    return { drift, vol };
  });
  const series = ASSETS.map(() => []);
  const logs = ASSETS.map((asset) => Math.log(asset.start));
  for (let m = 0; m < MINUTES; m += 1) {
    const at = START + m * MINUTE;
    const hour = new Date(at).getUTCHours();
    const common = market.normal();
    ASSETS.forEach((asset, index) => {
      const { drift, vol } = plans[index];
      const sigma = asset.sigma * vol[m];
      const beta = asset.beta ?? 1;
      const z = asset.beta === undefined ? common : beta * common + Math.sqrt(1 - beta * beta) * idiosyncratic[index].normal();
      if (m > 0) logs[index] += drift[m - 1] - (sigma * sigma) / 2 + sigma * z;
      const noise = volumes[index].normal();
      const activity = diurnal(hour) * vol[m] ** 1.2 * (0.6 + 0.5 * Math.abs(z));
      const volume = Math.max(0.0001, round(asset.volume * activity * Math.exp(0.35 * noise - 0.06), 4));
      series[index].push({ at, price: round(Math.exp(logs[index]), 2), volume });
    });
  }
  return Object.fromEntries(ASSETS.map((asset, index) => [asset.symbol, series[index]]));
}

const prices = simulatePrices();
/** The price of a symbol at (the minute at or before) a time. */
const priceAt = (symbol, at) => prices[symbol][Math.max(0, Math.min(MINUTES - 1, Math.floor((at - START) / MINUTE)))].price;
const changeOver = (symbol, at, span) => priceAt(symbol, at) / priceAt(symbol, Math.max(START, at - span)) - 1;

// ---------------------------------------------------------------- analysis

function firstAbove(series, level) {
  const index = series.findIndex((point) => point.price > level);
  return index < 0 ? undefined : { ...series[index], index };
}

function extremes(series, from, to) {
  let high;
  let low;
  for (const point of series) {
    if (point.at < from || point.at >= to) continue;
    if (!high || point.price > high.price) high = point;
    if (!low || point.price < low.price) low = point;
  }
  return { high, low };
}

/** The first minute whose price is at least `drop` below the highest price of the previous 24 hours. */
function firstDrop(series, drop) {
  const window = []; // indices, prices decreasing (a monotonic deque of the rolling maximum)
  for (let i = 0; i < series.length; i += 1) {
    while (window.length && series[window[window.length - 1]].price <= series[i].price) window.pop();
    window.push(i);
    while (series[window[0]].at < series[i].at - DAY) window.shift();
    const high = series[window[0]];
    if (series[i].price <= high.price * (1 - drop)) return { high, low: series[i], change: series[i].price / high.price - 1 };
  }
  return undefined;
}

/** The largest peak-to-trough fall within 24 hours. */
function largestDrop(series) {
  let best;
  const window = [];
  for (let i = 0; i < series.length; i += 1) {
    while (window.length && series[window[window.length - 1]].price <= series[i].price) window.pop();
    window.push(i);
    while (series[window[0]].at < series[i].at - DAY) window.shift();
    const high = series[window[0]];
    const change = series[i].price / high.price - 1;
    if (!best || change < best.change) best = { high, low: series[i], change };
  }
  return best;
}

/** Hourly closes (the last minute price of each UTC hour) and Wilder's RSI over them. */
function hourlyRsi(series, period) {
  const closes = series.filter((point) => new Date(point.at).getUTCMinutes() === 59);
  const out = [];
  let gain = 0;
  let loss = 0;
  for (let i = 1; i < closes.length; i += 1) {
    const change = closes[i].price - closes[i - 1].price;
    const up = Math.max(change, 0);
    const down = Math.max(-change, 0);
    if (i <= period) {
      gain += up / period;
      loss += down / period;
    } else {
      gain = (gain * (period - 1) + up) / period;
      loss = (loss * (period - 1) + down) / period;
    }
    if (i >= period) out.push({ at: closes[i].at, price: closes[i].price, rsi: loss === 0 ? 100 : 100 - 100 / (1 + gain / loss) });
  }
  return out;
}

/** Maximal runs of consecutive values satisfying a test. */
function stretches(values, test) {
  const runs = [];
  let run;
  for (const value of values) {
    if (test(value)) {
      if (!run) runs.push((run = { from: value, to: value, values: [] }));
      run.to = value;
      run.values.push(value);
    } else run = undefined;
  }
  return runs;
}

const btcCross = firstAbove(prices.BTC, 105_000);
const ethDrop = firstDrop(prices.ETH, 0.08);
const ethLargest = largestDrop(prices.ETH);
const solRsi = hourlyRsi(prices.SOL, 14);
const solHot = stretches(solRsi, (point) => point.rsi > 70);
const solCold = stretches(solRsi, (point) => point.rsi < 30);

// ---------------------------------------------------------------- posts and news

const TWEET_EPOCH = 1288834974657n;
const ids = stream(30);
/** A snowflake-style id (time and random low bits), like real post ids. */
const tweetId = (at) => ((BigInt(at) - TWEET_EPOCH) << 22n | BigInt(ids.int(0, 4_194_303))).toString();
const k = (value) => money(value, 0);
const musd = (value) => (value >= 1e9 ? `$${(value / 1e9).toFixed(2)}B` : `$${money(value / 1e6, 0)}M`);
const saylorBuy = 1283 * priceAt('BTC', t('d1 12:31'));
/** The change from the highest price since `from` to the price at `at`. */
const fromHigh = (symbol, from, at) =>
  priceAt(symbol, at) / Math.max(...prices[symbol].filter((point) => point.at >= from && point.at <= at).map((point) => point.price)) - 1;

const crossAt = btcCross ? btcCross.at : t('d2 15:00');
const plus = (at, minutes, seconds = 0) => at + minutes * MINUTE + seconds * 1000;

/** [time, username, text, tag]; a tag names a moment for the README table. */
const TWEETS = [
  [t('d1 01:12:09'), 'cz_binance', 'First full week of 2026. Keep building. 🙏'],
  [t('d1 03:40:51'), 'VitalikButerin', 'Blob fees have been near zero for weeks. L2s should pass that on to users; there is no excuse for $0.50 transfers anymore.'],
  [t('d1 07:05:33'), 'lookonchain', `A whale withdrew 1,850 $BTC (${musd(1850 * priceAt('BTC', t('d1 07:05')))}) from exchanges in the past 24 hours and now holds 12,430 $BTC.`],
  [t('d1 09:18:27'), 'elonmusk', 'X Money is coming along nicely. Payments should be instant and free.'],
  [t('d1 12:31:04'), 'saylor', `Strategy has acquired 1,283 BTC for ~$${(saylorBuy / 1e6).toFixed(1)} million at ~$${k(priceAt('BTC', t('d1 12:31')))} per bitcoin. As of 1/4/2026, we hodl 674,532 $BTC acquired for ~$50.61 billion at ~$75,030 per bitcoin. $MSTR`, 'saylor-buy'],
  [t('d1 13:02:40'), 'WatcherGuru', `JUST IN: Strategy buys another 1,283 #Bitcoin worth $${money(saylorBuy / 1e6, 0)} million.`],
  [t('d1 20:31:12'), 'WatcherGuru', 'JUST IN: 🇺🇸 SEC approves spot Solana ETFs.'],
  [t('d1 20:36:50'), 'aeyakovenko', 'Spot SOL ETFs approved. Thank you to everyone who kept building through the bear. Now back to shipping.'],
  [t('d1 21:20:05'), 'lookonchain', `$SOL is up ${size(changeOver('SOL', t('d1 21:20'), t('d1 21:20') - t('d1 20:29')))} since the ETF approval; 3 wallets bought 410K $SOL (${musd(410_000 * priceAt('SOL', t('d1 21:20')))}) in the past hour.`],
  [t('d1 17:03:30'), 'VitalikButerin', 'New post: the trade-offs between based rollups and native rollups, and why I think both will matter.'],
  [t('d1 19:47:02'), 'APompliano', 'Bitcoin just printed a higher low. Wall Street is still early.'],
  [t('d1 22:44:18'), 'cz_binance', 'Congrats to the Solana community on the ETF approval. More access for more people. 👍'],
  [t('d2 00:58:14'), 'WatcherGuru', `JUST IN: $SOL open interest hits a record as the price tops $${k(priceAt('SOL', t('d2 00:58')))}.`],
  [t('d2 02:14:37'), 'elonmusk', 'Dogecoin is the people’s crypto 🐕🚀', 'elon-doge'],
  [t('d2 02:26:10'), 'WatcherGuru', 'JUST IN: Elon Musk says #Dogecoin is "the people’s crypto."'],
  [t('d2 05:33:48'), 'saylor', '₿itcoin is digital capital.'],
  [t('d2 07:12:59'), 'lookonchain', `Spot Bitcoin ETFs saw net inflows of 9,870 $BTC (${musd(9870 * priceAt('BTC', t('d2 07:12')))}) yesterday; one issuer alone bought 6,120 $BTC.`],
  [t('d2 09:40:22'), 'VitalikButerin', 'PeerDAS is working smoothly on mainnet. There is now room for a lot more blobs; rollups, please use it.'],
  [t('d2 11:05:16'), 'cz_binance', 'Stablecoin volumes keep hitting new highs. Payments are happening, quietly.'],
  [plus(crossAt, 3, 41), 'WatcherGuru', 'JUST IN: #Bitcoin crosses $105,000.', 'btc-105k-post'],
  [plus(crossAt, 22, 5), 'saylor', 'Bitcoin is the exit. 🟠'],
  [plus(crossAt, 51, 30), 'APompliano', 'Bitcoin above $105K and nobody at the dinner table is talking about it yet.'],
  [t('d2 17:55:02'), 'aeyakovenko', 'Firedancer now runs on 30% of stake. Block times are boring, which is the point.'],
  [t('d2 19:20:44'), 'lookonchain', `A trader who went 10x long $ETH at $3,450 is now up $4.2M as $ETH trades at $${k(priceAt('ETH', t('d2 19:20')))}.`],
  [t('d2 21:03:19'), 'VitalikButerin', 'Reminder: if a yield looks too good to be true, ask where it comes from.'],
  [t('d2 23:14:56'), 'cz_binance', 'Good night from Dubai. Markets never sleep; you should.'],
  [t('d3 02:51:33'), 'zachxbt', 'Meridian Finance lending markets appear to have been exploited via oracle manipulation. ~$40M drained so far; funds are being bridged to Ethereum and swapped for ETH.', 'exploit-post'],
  [t('d3 02:58:10'), 'lookonchain', 'The Meridian exploiter is dumping: sold 6,200 $stETH for $ETH and is moving 4,000 $ETH through a mixer.'],
  [t('d3 03:20:44'), 'VitalikButerin', 'If you have open token approvals to Meridian contracts, revoke them now.'],
  [t('d3 05:10:12'), 'WatcherGuru', 'JUST IN: Meridian Finance pauses all markets after $40 million exploit.'],
  [t('d3 08:41:27'), 'lookonchain', 'Unusual outflows from FlowEx hot wallets: 18,400 $ETH and 2,150 $BTC withdrawn in the past 3 hours.', 'flowex-outflows'],
  [t('d3 09:16:03'), 'WatcherGuru', 'JUST IN: Crypto exchange FlowEx pauses withdrawals, citing "wallet maintenance."'],
  [t('d3 09:34:50'), 'cz_binance', '4'],
  [t('d3 10:02:18'), 'zachxbt', 'FlowEx’s stated reserves do not match what is visible on-chain. Be careful.'],
  [t('d3 11:25:37'), 'saylor', 'Volatility is vitality. #Bitcoin'],
  [t('d3 12:48:09'), 'APompliano', 'Not your keys, not your coins. Again.'],
  [t('d3 14:10:55'), 'elonmusk', 'Doge doesn’t care about exchanges 🐕'],
  [t('d3 17:41:20'), 'WatcherGuru', 'JUST IN: FlowEx resumes withdrawals and publishes proof of reserves.'],
  [t('d3 18:30:02'), 'VitalikButerin', 'Proof of reserves without proof of liabilities is half a proof.'],
  [t('d3 20:06:41'), 'saylor', 'Strategy is buying the dip. ₿'],
  [t('d3 22:40:13'), 'aeyakovenko', 'Solana processed 4,000+ TPS all day through the volatility. No downtime.'],
];

/** [time, headline, tag]. */
const NEWS = [
  [t('d1 00:30:00'), `Bitcoin opens the week near $${k(priceAt('BTC', t('d1 00:30')))} as traders look to US jobs data`],
  [t('d1 08:15:00'), 'Asian markets steady; crypto trading volumes subdued ahead of the US session'],
  [t('d1 12:45:00'), 'Strategy adds 1,283 BTC to its treasury, bringing its holdings to 674,532 BTC'],
  [t('d1 20:30:00'), 'SEC approves spot Solana ETF applications from several issuers', 'sol-etf'],
  [t('d1 23:20:00'), `Solana jumps ${size(changeOver('SOL', t('d1 23:20'), t('d1 23:20') - t('d1 20:29')))} after spot ETF approval`],
  [t('d2 01:30:00'), 'Spot Solana ETFs to begin trading Thursday; issuers set fees at 0.20% to 0.25%'],
  [t('d2 07:45:00'), 'Bitcoin ETFs log $1 billion of net inflows, the most since October'],
  [t('d2 10:30:00'), 'Fed official signals room for further rate cuts if inflation keeps easing'],
  [plus(crossAt, 10), 'Bitcoin tops $105,000 as ETF inflows accelerate', 'btc-105k-news'],
  [t('d2 18:10:00'), `Ether rises to $${k(priceAt('ETH', t('d2 18:10')))}, ${pct(changeOver('ETH', t('d2 18:10'), DAY))} in 24 hours, leading large caps higher`],
  [t('d2 21:30:00'), 'Crypto market capitalisation climbs back above $3.6 trillion'],
  [t('d3 02:47:00'), 'Meridian Finance protocol exploited, $40M drained', 'exploit'],
  [t('d3 04:05:00'), 'Meridian Finance confirms oracle manipulation attack; all markets paused'],
  [t('d3 06:30:00'), `Ether falls ${size(changeOver('ETH', t('d3 06:30'), DAY))} in 24 hours as DeFi exploit rattles traders`],
  [t('d3 09:12:00'), 'Crypto exchange FlowEx halts withdrawals amid reports of heavy outflows', 'flowex-halt'],
  [t('d3 11:00:00'), 'FlowEx says customer funds are safe, blames wallet maintenance for withdrawal halt'],
  [t('d3 12:30:00'), `Bitcoin drops ${size(fromHigh('BTC', t('d3 09:00'), t('d3 12:30')))} from its morning high as exchange fears spread`],
  [t('d3 15:20:00'), 'Regulators ask FlowEx for details of its customer asset holdings'],
  [t('d3 17:30:00'), 'FlowEx resumes withdrawals, publishes proof of reserves', 'flowex-resume'],
  [t('d3 20:45:00'), 'Crypto markets recover part of the day’s losses as FlowEx withdrawals normalise'],
  [t('d3 23:10:00'), 'Meridian Finance offers the exploiter a 10% bounty for the return of funds'],
];

const tweets = TWEETS.map(([at, username, text, tag]) => {
  const id = tweetId(at);
  return { at, source: 'tweet', username, text, tweetId: id, url: `https://x.com/${username}/status/${id}`, tag };
});
const news = NEWS.map(([at, text, tag], index) => {
  const id = `news-${String(index + 1).padStart(3, '0')}`;
  return { at, source: 'news', text, url: `https://news.example.com/${iso(at).slice(0, 10).replaceAll('-', '/')}/${slug(text)}`, id, tag };
});

// ---------------------------------------------------------------- LLM verdicts

const BULLISH = 'Is crypto market sentiment bullish?';
const CRISIS = 'Is a major exchange facing a liquidity crisis?';

/** Piecewise-linear targets by time, plus AR(1) noise; confidences are whole numbers. */
const PATHS = [
  {
    query: BULLISH, noise: 1.5,
    anchors: [
      ['d1 00:00', 56], ['d1 12:00', 58], ['d1 20:00', 57], ['d1 22:00', 66], ['d1 23:00', 68],
      ['d2 08:00', 70], ['d2 13:00', 74], ['d2 16:00', 84], ['d2 20:00', 88], ['d2 23:00', 85],
      ['d3 02:00', 82], ['d3 04:00', 66], ['d3 08:00', 62], ['d3 11:00', 38], ['d3 16:00', 34],
      ['d3 19:00', 45], ['d3 23:00', 50],
    ],
  },
  {
    query: CRISIS, noise: 1,
    anchors: [
      ['d1 00:00', 9], ['d2 23:00', 11], ['d3 08:00', 13], ['d3 09:00', 24], ['d3 10:00', 62],
      ['d3 12:00', 76], ['d3 15:00', 70], ['d3 18:00', 38], ['d3 23:00', 22],
    ],
  },
];

function target(anchors, at) {
  const points = anchors.map(([time, value]) => [t(time), value]);
  for (let i = points.length - 1; i >= 0; i -= 1) {
    const [time, value] = points[i];
    if (at >= time) {
      const next = points[i + 1];
      return next ? value + ((next[1] - value) * (at - time)) / (next[0] - time) : value;
    }
  }
  return points[0][1];
}

const latestNews = (at) => news.filter((item) => item.at <= at).at(-1);

function reasoning(query, at) {
  const move = (symbol, digits) => `${symbol} ${money(priceAt(symbol, at), digits)} (${pct(changeOver(symbol, at, DAY))} 24h)`;
  const headline = latestNews(at);
  const recent = headline ? ` Latest headline: "${headline.text}".` : '';
  if (query === BULLISH) return `${move('BTC', 0)}, ${move('ETH', 0)}, ${move('SOL', 2)}.${recent}`;
  if (at < t('d3 08:41')) return `No exchange reports withdrawal problems; exchange balances and stablecoin flows look normal.${recent}`;
  if (at < t('d3 09:12')) return `Large outflows from FlowEx hot wallets reported, withdrawals still open.${recent}`;
  if (at < t('d3 17:30')) return `FlowEx has paused withdrawals since 09:12 UTC amid heavy outflows; its reserves are questioned.${recent}`;
  return `FlowEx resumed withdrawals at 17:30 UTC and published proof of reserves; concern is fading.${recent}`;
}

const verdicts = [];
PATHS.forEach((path, index) => {
  const noise = stream(40 + index);
  let error = 0;
  for (let hour = 0; hour < DAYS * 24; hour += 1) {
    const at = START + hour * HOUR;
    error = 0.6 * error + path.noise * noise.normal();
    const confidence = Math.max(0, Math.min(100, Math.round(target(path.anchors, at) + error)));
    verdicts.push({ at, source: 'llm', query: path.query, confidence, reasoning: reasoning(path.query, at) });
  }
});

// ---------------------------------------------------------------- writing

const KEYS = {
  price: ['symbol', 'price', 'volume', 'exchange'],
  tweet: ['username', 'text', 'tweetId', 'url'],
  news: ['text', 'url', 'id'],
  llm: ['query', 'confidence', 'reasoning'],
};
const RANK = { price: 0, llm: 1, news: 2, tweet: 3 };

/** The canonical line of serializeRecording: at, source, then the fields of the source in order. */
function line(observation) {
  const record = { at: iso(observation.at), source: observation.source };
  for (const key of KEYS[observation.source]) if (observation[key] !== undefined) record[key] = observation[key];
  return JSON.stringify(record);
}

const header = (what) =>
  `// EQL recording: ${what}. Generated by scripts/generate-recordings.mjs (seed ${SEED}); ` +
  'do not edit, run `node scripts/generate-recordings.mjs`. See README.md.';

function write(name, what, observations) {
  const sorted = observations
    .map((observation, index) => ({ observation, index }))
    .sort((a, b) => a.observation.at - b.observation.at || RANK[a.observation.source] - RANK[b.observation.source] || a.index - b.index)
    .map(({ observation }) => observation);
  const text = `${header(what)}\n${sorted.map(line).join('\n')}\n`;
  writeFileSync(`${outDir}${name}`, text);
  const counts = { price: 0, tweet: 0, news: 0, llm: 0 };
  for (const observation of sorted) counts[observation.source] += 1;
  return { name, what, lines: sorted.length + 1, bytes: Buffer.byteLength(text), counts, first: sorted[0].at, last: sorted.at(-1).at };
}

const priceObservations = (symbol, from = START, to = START + DAYS * DAY) =>
  prices[symbol].filter((point) => point.at >= from && point.at < to).map((point) => ({ at: point.at, source: 'price', symbol, price: point.price, volume: point.volume }));

// ---------------------------------------------------------------- checks

const problems = [];
const check = (ok, message) => {
  if (!ok) problems.push(message);
};
const dayOf = (at) => Math.floor((at - START) / DAY) + 1;
const bullish = verdicts.filter((verdict) => verdict.query === BULLISH);
const crisis = verdicts.filter((verdict) => verdict.query === CRISIS);
const bullishCross = bullish.find((verdict) => verdict.confidence > 80);
const bullishAtOrAbove80 = bullish.find((verdict) => verdict.confidence >= 80);
const crisisCross = crisis.find((verdict) => verdict.confidence >= 50);
const crisisPeak = crisis.reduce((best, verdict) => (verdict.confidence > best.confidence ? verdict : best));
const crisisBack = crisisCross && crisis.find((verdict) => verdict.at > crisisCross.at && verdict.confidence < 50);
const bullishPeak = bullish.reduce((best, verdict) => (verdict.confidence > best.confidence ? verdict : best));
const bullishBack = bullishCross && bullish.find((verdict) => verdict.at > bullishCross.at && verdict.confidence < 50);

check(btcCross && dayOf(btcCross.at) === 2, 'BTC must first trade above 105,000 on day 2');
check(btcCross && prices.BTC.slice(0, btcCross.index).every((point) => point.price < 105_000), 'BTC must stay below 105,000 before the crossing');
check(ethDrop !== undefined, 'ETH must fall more than 8% within 24 hours');
check(solHot.length > 0 && solHot.some((run) => run.values.length >= 3), 'SOL RSI(14, 1h) needs a stretch above 70 (3 hours or more)');
check(solCold.length > 0 && solCold.some((run) => run.values.length >= 3), 'SOL RSI(14, 1h) needs a stretch below 30 (3 hours or more)');
check(bullishCross && dayOf(bullishCross.at) === 2 && bullishAtOrAbove80 === bullishCross, 'the bullish verdict must first reach 80 on day 2, going above it');
check(crisisCross && dayOf(crisisCross.at) === 3, 'the liquidity-crisis verdict must first reach 50 on day 3');
check(Object.values(prices).every((series) => series.every((point) => point.volume > 0 && point.price > 0)), 'prices and volumes must be positive');
for (const item of [...tweets, ...news]) check(item.at >= START && item.at < START + DAYS * DAY, `${item.text} is outside the recording`);

if (problems.length > 0) {
  console.error(`generate-recordings: the generated data misses what the fixtures promise:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}

// ---------------------------------------------------------------- output

mkdirSync(outDir, { recursive: true });
const strip = (item) => {
  const { tag: _tag, ...observation } = item;
  return observation;
};
const files = [
  write('market-3d.jsonl', '3 days of minute prices of BTC, ETH and SOL from 2026-01-05T00:00Z with posts, news and LLM verdicts', [
    ...priceObservations('BTC'), ...priceObservations('ETH'), ...priceObservations('SOL'),
    ...tweets.map(strip), ...news.map(strip), ...verdicts,
  ]),
  write('btc-1d.jsonl', 'the BTC minute prices of 2026-01-06 (day 2 of market-3d.jsonl)', priceObservations('BTC', t('d2 00:00'), t('d3 00:00'))),
];

const tagged = (tag) => [...tweets, ...news].find((item) => item.tag === tag);
const dayRange = (symbol, day) => extremes(prices[symbol], START + (day - 1) * DAY, START + day * DAY);
const rsiRun = (run) => `${when(run.from.at)} to ${when(run.to.at)} (${run.values.length} h, RSI ${Math.min(...run.values.map((v) => v.rsi)).toFixed(1)} to ${Math.max(...run.values.map((v) => v.rsi)).toFixed(1)})`;
const btcHigh = extremes(prices.BTC, START, START + DAYS * DAY).high;
const d2 = dayRange('BTC', 2);
const btcDay2 = prices.BTC.filter((point) => point.at >= t('d2 00:00') && point.at < t('d3 00:00'));

/** [time, file(s), what happens]. */
const moments = [
  [START, 'market-3d', `Start. BTC ${money(prices.BTC[0].price)}, ETH ${money(prices.ETH[0].price)}, SOL ${money(prices.SOL[0].price)} (first price lines at 00:00:00).`],
  [t('d2 00:00'), 'btc-1d', `btc-1d starts: BTC ${money(btcDay2[0].price)} (it ends at 23:59 with ${money(btcDay2.at(-1).price)}).`],
  [tagged('saylor-buy').at, 'market-3d', `saylor posts that Strategy acquired 1,283 BTC (tweet; "Strategy has acquired 1,283 BTC ...").`],
  [tagged('sol-etf').at, 'market-3d', `News "SEC approves spot Solana ETF applications from several issuers" (id ${tagged('sol-etf').id}); SOL ${money(priceAt('SOL', tagged('sol-etf').at))} then pops.`],
  ...solHot.filter((run) => run.values.length >= 3).map((run) => [run.from.at, 'market-3d', `SOL RSI(14) on 1h closes above 70: ${rsiRun(run)}. Hourly close = price at HH:59, Wilder smoothing.`]),
  [tagged('elon-doge').at, 'market-3d', 'elonmusk posts "Dogecoin is the people’s crypto 🐕🚀".'],
  [btcCross.at, 'market-3d, btc-1d', `BTC first trades above 105,000: ${money(btcCross.price)} (previous minute ${money(prices.BTC[btcCross.index - 1].price)}). Never at or above 105,000 before.`],
  [tagged('btc-105k-post').at, 'market-3d', 'WatcherGuru posts "JUST IN: #Bitcoin crosses $105,000."'],
  [bullishCross.at, 'market-3d', `LLM verdict "${BULLISH}" first above 80: ${bullishCross.confidence} (previous hour ${bullish[bullish.indexOf(bullishCross) - 1].confidence}; never 80 or more before).`],
  [bullishPeak.at, 'market-3d', `Bullish verdict peaks at ${bullishPeak.confidence} (first hour at its peak).`],
  [d2.high.at, 'market-3d, btc-1d', `BTC high of day 2${d2.high === btcHigh ? ' (and of the recording)' : ''}: ${money(d2.high.price)}.`],
  [tagged('exploit').at, 'market-3d', `News "Meridian Finance protocol exploited, $40M drained" (id ${tagged('exploit').id}); zachxbt posts about it at ${when(tagged('exploit-post').at).slice(11)}.`],
  [ethDrop.low.at, 'market-3d', `ETH first more than 8% below its 24-hour high: ${money(ethDrop.low.price)} vs ${money(ethDrop.high.price)} at ${when(ethDrop.high.at)} (${pct(ethDrop.change)}).`],
  [tagged('flowex-outflows').at, 'market-3d', 'lookonchain posts about unusual FlowEx hot-wallet outflows.'],
  [tagged('flowex-halt').at, 'market-3d', `News "Crypto exchange FlowEx halts withdrawals amid reports of heavy outflows" (id ${tagged('flowex-halt').id}).`],
  [crisisCross.at, 'market-3d', `LLM verdict "${CRISIS}" first at 50 or more: ${crisisCross.confidence} (peak ${crisisPeak.confidence} at ${when(crisisPeak.at).slice(11)}).`],
  ...solCold.filter((run) => run.values.length >= 3).map((run) => [run.from.at, 'market-3d', `SOL RSI(14) on 1h closes below 30: ${rsiRun(run)}.`]),
  [ethLargest.low.at, 'market-3d', `ETH low of the largest 24-hour fall: ${money(ethLargest.low.price)} from ${money(ethLargest.high.price)} at ${when(ethLargest.high.at)} (${pct(ethLargest.change)}).`],
  [tagged('flowex-resume').at, 'market-3d', `News "FlowEx resumes withdrawals, publishes proof of reserves" (id ${tagged('flowex-resume').id}).`],
  ...(bullishBack ? [[bullishBack.at, 'market-3d', `Bullish verdict first below 50 after its rise: ${bullishBack.confidence}.`]] : []),
  ...(crisisBack ? [[crisisBack.at, 'market-3d', `Liquidity-crisis verdict back below 50: ${crisisBack.confidence}.`]] : []),
  [START + DAYS * DAY - MINUTE, 'market-3d', `Last prices: BTC ${money(prices.BTC.at(-1).price)}, ETH ${money(prices.ETH.at(-1).price)}, SOL ${money(prices.SOL.at(-1).price)}.`],
].sort((a, b) => a[0] - b[0]);

const dayTable = ['BTC', 'ETH', 'SOL'].flatMap((symbol) =>
  [1, 2, 3].map((day) => {
    const { high, low } = dayRange(symbol, day);
    const series = prices[symbol].filter((point) => dayOf(point.at) === day);
    return `| ${symbol} | 2026-01-0${4 + day} | ${money(series[0].price)} | ${money(high.price)} (${when(high.at).slice(11)}) | ${money(low.price)} (${when(low.at).slice(11)}) | ${money(series.at(-1).price)} |`;
  }),
);

const fileTable = files.map(
  (file) =>
    `| \`${file.name}\` | ${iso(file.first)} to ${iso(file.last)} | ${file.counts.price} | ${file.counts.tweet} | ${file.counts.news} | ${file.counts.llm} | ${file.lines} | ${money(file.bytes / 1024, 0)} KiB |`,
);

const accounts = [...new Set(tweets.map((tweet) => tweet.username))].sort((a, b) => a.localeCompare(b));
const readme = `# Recordings

Recorded observations for replays (\`eql preview FILE --data RECORDING.jsonl\`) and tests. Generated by
\`scripts/generate-recordings.mjs\` (seed ${SEED}): do not edit by hand; regenerate with

    node scripts/generate-recordings.mjs

The script is deterministic (same bytes on every run, no clock, no \`Math.random\`, no locale data), checks
that the moments below happen, and prints them. Every time is UTC.

## Files

| File | Span | price | tweet | news | llm | lines | size |
| --- | --- | --- | --- | --- | --- | --- | --- |
${fileTable.join('\n')}

- \`market-3d.jsonl\`: a minute price line for each of BTC, ETH and SOL at every minute from 2026-01-05 00:00
  to 2026-01-07 23:59; ${tweets.length} posts by ${accounts.join(', ')};
  ${news.length} news items; and an LLM verdict for each of "${BULLISH}" and "${CRISIS}"
  every hour on the hour (with a \`reasoning\` quoting the prices of the moment).
- \`btc-1d.jsonl\`: the BTC lines of 2026-01-06 from \`market-3d.jsonl\` (the same prices and volumes), for fast
  tests; it includes the crossing of 105,000.

## Format

JSON Lines, read by \`parseRecording\` of \`packages/core/src/engine/recording.ts\`: one observation per
line, ordered by \`at\` (equal times keep file order; here price lines come first in a minute, then LLM
verdicts, news and posts). The first line of each file is a \`//\` comment; blank and \`//\` lines are allowed.
The lines are in the canonical form of \`serializeRecording\` (keys \`at\`, \`source\`, then the fields below).

| source | fields |
| --- | --- |
| \`price\` | \`symbol\` (\`BTC\`, \`ETH\`, \`SOL\`), \`price\` (USD, 2 decimals), \`volume\` (base units traded in the minute, 4 decimals, > 0) |
| \`tweet\` | \`username\` (without @), \`text\`, \`tweetId\` (a string), \`url\` |
| \`news\` | \`text\` (the headline), \`url\` (news.example.com), \`id\` (\`news-001\` ...) |
| \`llm\` | \`query\`, \`confidence\` (whole number 0 to 100), \`reasoning\` |

    {"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":100000,"volume":${prices.BTC[0].volume}}

## How the data is made

- Prices: a geometric Brownian motion per minute, from a mulberry32 PRNG with Box-Muller normals.
  Minute volatility BTC 0.06%, ETH 0.08%, SOL 0.11% (about 43%, 58%, 80% a year); ETH and SOL load 0.75 on
  BTC's shocks. Regimes (drift and volatility multipliers) follow the story: a quiet Monday, spot Solana
  ETFs approved at 20:30 on day 1, an ETF-driven BTC rally on day 2, a DeFi exploit (Meridian Finance, made
  up) early on day 3 and a withdrawal halt at an exchange (FlowEx, made up) from 09:12 to 17:30 on day 3.
- Volumes: base volume x a UTC-hour activity curve x the regime volatility x (0.6 + 0.5 |shock|) x a log-normal
  factor.
- Posts and news: fixed texts and times in the script (some quote the generated prices; the posts about the
  105,000 crossing are timed from it). The texts are fictional, written for tests. Post ids are
  snowflake-style (time in the high bits).
- LLM verdicts: a piecewise-linear path per predicate plus AR(1) noise, rounded.

## Notable moments

Computed from the generated data by the script. "Day 1" is 2026-01-05, "day 2" 2026-01-06, "day 3" 2026-01-07.

| Time (UTC) | File | What happens |
| --- | --- | --- |
${moments.map(([at, file, text]) => `| ${iso(at).replace('T', ' ').replace('Z', '')} | ${file} | ${text} |`).join('\n')}

### Daily open, high, low and close

| Symbol | Day | Open (00:00) | High (time) | Low (time) | Close (23:59) |
| --- | --- | --- | --- | --- | --- |
${dayTable.join('\n')}

### SOL RSI(14) on hourly closes

Wilder's RSI over the price at HH:59 of each hour (trading-signals' \`RSI(14)\` fed those prices gives the same
stretches; packages/core/test/recording.test.ts checks where they start); the first value is at 2026-01-05 14:59.

Stretches above 70: ${solHot.map(rsiRun).join('; ')}.
Stretches below 30: ${solCold.map(rsiRun).join('; ')}.

### Hourly LLM verdicts

${[BULLISH, CRISIS].map((query) => `- "${query}": ${verdicts.filter((v) => v.query === query).map((v) => v.confidence).join(' ')}`).join('\n')}
`;
writeFileSync(`${outDir}README.md`, readme);

if (!quiet) {
  for (const file of files) console.log(`${file.name}: ${file.lines} lines, ${file.bytes} bytes, ${JSON.stringify(file.counts)}`);
  console.log('\nNotable moments (UTC):');
  for (const [at, file, text] of moments) console.log(`  ${when(at)}  [${file}]  ${text}`);
}
