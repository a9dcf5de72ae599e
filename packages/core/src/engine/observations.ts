/**
 * What data sources emit. Times are epoch milliseconds. Recordings (JSON Lines) hold the same objects
 * with `at` as an ISO 8601 string; see `recording.ts`.
 */

/** A trade price. `volume` is the base volume traded since the previous observation of the symbol. */
export interface PriceObservation {
  at: number;
  source: 'price';
  symbol: string;
  price: number;
  volume?: number;
  exchange?: string;
}

/** A post by an account. */
export interface TweetObservation {
  at: number;
  source: 'tweet';
  username: string;
  text: string;
  tweetId: string;
  url?: string;
}

/** A news item. */
export interface NewsObservation {
  at: number;
  source: 'news';
  text: string;
  url?: string;
  id?: string;
}

/** A recorded LLM verdict on a predicate, so a replay of an llm condition is deterministic. */
export interface LlmVerdictObservation {
  at: number;
  source: 'llm';
  query: string;
  confidence: number;
  reasoning?: string;
}

/** Anything a data source delivers: a price tick, a post, a news item or a recorded LLM verdict. */
export type Observation = PriceObservation | TweetObservation | NewsObservation | LlmVerdictObservation;

/** What a condition listens to; the engine shares one upstream subscription per topic. */
export type Topic =
  | { source: 'price'; symbol: string; exchange?: string }
  | { source: 'tweet'; username: string }
  | { source: 'news' };

/** A stable text key of a topic: `price:BTC`, `price:BTC@binance`, `tweet:elonmusk`, `news`. */
export function topicKey(topic: Topic): string {
  switch (topic.source) {
    case 'price':
      return `price:${topic.symbol}${topic.exchange ? `@${topic.exchange}` : ''}`;
    case 'tweet':
      return `tweet:${topic.username.toLowerCase()}`;
    case 'news':
      return 'news';
  }
}

/** A topic as a person reads it: `BTC`, `BTC on binance`, `posts of @elonmusk`, `news`. */
export function describeTopic(topic: Topic): string {
  switch (topic.source) {
    case 'price':
      return topic.exchange ? `prices of ${topic.symbol} on ${topic.exchange}` : `prices of ${topic.symbol}`;
    case 'tweet':
      return `posts of @${topic.username}`;
    case 'news':
      return 'news';
  }
}

/**
 * The asset a market symbol is about, for matching price topics across symbol forms:
 * `BTC`, `btc`, `BTC/USDT`, `BTC/USDT:USDT`, `BTC-PERP`, `BTC_USDT` all give `BTC`.
 */
export function baseAsset(symbol: string): string {
  let base = baseAssets.get(symbol);
  if (base === undefined) {
    base = (symbol.split(/[/:_-]/)[0] ?? symbol).toUpperCase();
    remember(baseAssets, symbol, base);
  }
  return base;
}

// Every tick asks for its symbol's asset and feed key: the answers are kept (a feed has a bounded set
// of symbols; the caches start over past MAX_REMEMBERED, so a stream of new symbols cannot grow them).
const MAX_REMEMBERED = 10_000;
const baseAssets = new Map<string, string>();
const priceFeedKeys = new Map<string, string>();

function remember(cache: Map<string, string>, key: string, value: string): void {
  if (cache.size >= MAX_REMEMBERED) cache.clear();
  cache.set(key, value);
}

function priceFeedKey(symbol: string): string {
  let key = priceFeedKeys.get(symbol);
  if (key === undefined) {
    key = `price:${baseAsset(symbol)}`;
    remember(priceFeedKeys, symbol, key);
  }
  return key;
}

/**
 * The feed key of a topic: sources route observations by it. Prices go by asset (`BTC`, `BTC/USDT` and
 * `BTC-PERP` are one; the exchange is the source's business), posts by account, news as one stream.
 */
export function feedKeyOfTopic(topic: Topic): string {
  switch (topic.source) {
    case 'price':
      return priceFeedKey(topic.symbol);
    case 'tweet':
      return `tweet:${topic.username.toLowerCase()}`;
    case 'news':
      return 'news';
  }
}

/** The feed key an observation is delivered under (see `feedKeyOfTopic`); none for LLM verdicts. */
export function feedKeyOfObservation(observation: Observation): string | undefined {
  switch (observation.source) {
    case 'price':
      return priceFeedKey(observation.symbol);
    case 'tweet':
      return `tweet:${observation.username.toLowerCase()}`;
    case 'news':
      return 'news';
    default:
      return undefined;
  }
}
