/**
 * Patterns shared by the phrase rules: market symbols, exchanges, articles, accounts, and free text
 * (the topic of a post, a news event, an LLM question) that runs to the end of its clause.
 */
import { EXCHANGE_NAMES, NOT_TICKERS, SYMBOL_NAMES } from '../text/lexicon.js';
import { textBetween, type Token } from '../text/tokens.js';
import { first, many, map, opt, seq, token, words, type Pattern } from './combinators.js';
import { step } from '../work.js';

/** Articles and possessives that may stand before a noun phrase. */
export const article = opt(words('the', 'a', 'an', 'its', 'it', 'their', 'my', 'his', 'her', 'this', 'that'));

/** The ticker a token names, if any: `$pepe`, `BTC/USDT`, `bitcoin`, `btc`, `PEPE`. */
export function symbolOf(t: Token): string | undefined {
  if (t.kind === 'cashtag') return t.text.slice(1).toUpperCase();
  if (t.kind === 'pair') return t.text.toUpperCase();
  if (t.kind !== 'word') return undefined;
  const known = SYMBOL_NAMES.get(t.lower);
  if (known !== undefined) return known;
  const bare = t.text.replace(/'s$/i, '');
  if (/^[A-Z][A-Z0-9]{1,9}$/.test(bare) && !NOT_TICKERS.has(bare) && /[A-Z]{2}/.test(bare)) return bare;
  return undefined;
}

/** A market symbol, optionally followed by `price`-less nouns such as `coin` or `token`. */
export const symbol: Pattern<string> = map(seq(token(symbolOf), opt(words('coin', 'token', 'coins', 'tokens'))), ([name]) => name);

/** An exchange by name: `binance`, `on hyperliquid`, `via bybit futures`, `paper trading`. */
export const exchange: Pattern<string> = map(
  seq(
    opt(words('on', 'at', 'via', 'using', 'through', 'with', 'from')),
    opt(words('the')),
    token((t) => (t.kind === 'word' ? EXCHANGE_NAMES.get(t.lower) : undefined)),
    opt(words('exchange', 'futures', 'perps', 'perpetuals', 'trading', 'account')),
  ),
  ([, , id]) => id,
);

/** An account: `@elonmusk`, or a bare name after `by` / `from`. */
export const account: Pattern<string> = first(
  token((t) => (t.kind === 'handle' && t.text.length <= 16 ? t.text.slice(1) : undefined)),
  token((t) => (t.kind === 'word' && /^[A-Za-z0-9_]{1,15}$/.test(t.text) && !['the', 'a', 'an', 'my', 'someone', 'anyone'].includes(t.lower) ? t.text : undefined)),
);

let boundary: Pattern<unknown> = () => undefined;
let clauseStart: Pattern<unknown> = () => undefined;

/**
 * Registers what ends a free-text clause: `here`, a rule that starts a clause of its own (an action,
 * an option, a source); `afterConnector`, what may follow `and` / `or` to start a new clause (also a
 * market condition). The rule table sets them once, so free text stops at any other rule.
 */
export function setClauseBoundary(here: Pattern<unknown>, afterConnector: Pattern<unknown>): void {
  boundary = here;
  clauseStart = afterConnector;
}

const HARD_STOPS = new Set([',', ';', '.', '!', '?', '(', ')', 'then', '->', '=>']);

/**
 * Free text to the end of its clause: a quoted string, or the words up to a comma, `then`, a
 * connector that starts another clause, or any boundary rule. Returns the text as written.
 */
export const freeText: Pattern<string> = first(
  token((t) => (t.kind === 'string' && t.text.trim() !== '' ? t.text.trim() : undefined)),
  (tokens, at) => {
    let end = at;
    while (end < tokens.length && !stopsAt(tokens, end, end === at)) {
      step();
      end += 1;
    }
    const value = textBetween(tokens, at, end);
    return value === '' ? undefined : { value, next: end };
  },
);

function stopsAt(tokens: readonly Token[], at: number, firstToken: boolean): boolean {
  const current = tokens[at] as Token;
  if (HARD_STOPS.has(current.lower) && current.kind !== 'string') return true;
  if (!firstToken && current.kind === 'word' && ['and', 'or', 'but', '&'].includes(current.lower)) return clauseStart(tokens, at + 1) !== undefined;
  return boundary(tokens, at) !== undefined;
}

/** Words that only glue a phrase: `about`, `regarding`, `that says`. */
export const about = opt(
  words('about', 'regarding', 'concerning', 'on', 'of', 'that', 'saying', 'that says', 'which says', 'mentioning', 'containing', 'with', 'something about', 'anything about', 'on the topic of', 'whether', 'if'),
);

/** Consumes any run of the given words. */
export function skip(...phrases: string[]): Pattern<string[]> {
  return many(words(...phrases));
}
