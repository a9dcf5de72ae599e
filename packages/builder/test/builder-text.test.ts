import { describe, expect, it } from 'vitest';
import { interpret } from '../src/index.js';
import { normalizeMessage } from '../src/text/normalize.js';
import { tokenize } from '../src/text/tokens.js';
import { amount, duration } from '../src/grammar/values.js';
import type { Pattern } from '../src/grammar/combinators.js';

/** The front of the grammar: normalization, tokens, values, and what is reported as not understood. */

const NOW = Date.UTC(2026, 0, 15, 12, 0);

function read<T>(pattern: Pattern<T>, text: string): T | undefined {
  const tokens = tokenize(normalizeMessage(text));
  const match = pattern(tokens, 0);
  return match && match.next === tokens.length ? match.value : undefined;
}

describe('normalize and tokenize', () => {
  it('folds quotes, dashes, comparison signs and spaces', () => {
    expect(normalizeMessage('  “BTC”\u00a0≥ 70k — then\u200b notify  ')).toBe('"BTC" >= 70k, then notify');
    expect(normalizeMessage('ETH − 5% ‘now’')).toBe("ETH - 5% 'now'");
  });

  it('reads numbers with their marks, pairs, handles, links, times and tokens', () => {
    const tokens = tokenize('$65,000 70k 1.5m 5% -1001234567890 BTC/USDT ETH-PERP @elonmusk https://x.example/a?b=1. 9:30pm 2026-03-01 stop-loss');
    expect(tokens.map((token) => token.kind)).toEqual(['number', 'number', 'number', 'number', 'number', 'pair', 'pair', 'handle', 'url', 'punct', 'time', 'date', 'word', 'word']);
    expect(tokens[0]).toMatchObject({ value: 65000, dollar: true });
    expect(tokens[1]).toMatchObject({ value: 70, unit: 'k' });
    expect(tokens[3]).toMatchObject({ value: 5, percent: true });
    expect(tokens[4]).toMatchObject({ value: -1001234567890 });
    expect(tokens[8]?.text).toBe('https://x.example/a?b=1');
    expect(tokens[10]).toMatchObject({ hour: 21, minute: 30 });
    expect(tokens.slice(-2).map((token) => token.lower)).toEqual(['stop', 'loss']);
  });

  it('keeps apostrophes inside words and reads single-quoted phrases as strings', () => {
    const tokens = tokenize("don't BTC's 'funds are safu'");
    expect(tokens.map((token) => [token.kind, token.lower])).toEqual([['word', "don't"], ['word', 'btc'], ['string', 'funds are safu']]);
  });
});

describe('values', () => {
  it('reads amounts: 70k, 1.5m, $65,000, 70 thousand dollars', () => {
    expect(read(amount, '70k')).toEqual({ value: 70000, dollar: false, percent: false });
    expect(read(amount, '1.5m')).toEqual({ value: 1500000, dollar: false, percent: false });
    expect(read(amount, '$65,000')).toEqual({ value: 65000, dollar: true, percent: false });
    expect(read(amount, '70 thousand dollars')).toEqual({ value: 70000, dollar: true, percent: false });
    expect(read(amount, '2.1 bn')).toEqual({ value: 2100000000, dollar: false, percent: false });
    expect(read(amount, '5%')).toBeUndefined();
  });

  it('reads durations: 24h, 15 minutes, 4-hour, an hour, half an hour, 1.5h', () => {
    expect(read(duration, '24h')).toBe(24 * 3_600_000);
    expect(read(duration, '15 minutes')).toBe(15 * 60_000);
    expect(read(duration, '4-hour')).toBe(4 * 3_600_000);
    expect(read(duration, 'an hour')).toBe(3_600_000);
    expect(read(duration, 'half an hour')).toBe(30 * 60_000);
    expect(read(duration, '1.5h')).toBe(90 * 60_000);
    expect(read(duration, '1m')).toBe(60_000);
  });
});

describe('what is not understood', () => {
  it('names exactly the words no rule read, and never negations', () => {
    expect(interpret('alert me when BTC is above 70k please', { now: NOW }).unknown).toEqual([]);
    expect(interpret('when BTC wobbles above 70k', { now: NOW }).unknown).toEqual(['wobbles']);
    expect(interpret('unless ETH is above 4k', { now: NOW }).unknown).toEqual(['unless']);
    expect(interpret('when BTC is above 70k email me at the office', { now: NOW }).unknown).toEqual(['email', 'office']);
  });

  it('asks for the market when none is named', () => {
    const reading = interpret('when the RSI is below 30', { now: NOW });
    expect(reading.questions).toEqual(['Which market do you mean for the rsi? For example "BTC" or "ETH".']);
    expect(interpret('when the RSI is below 30', { now: NOW, symbol: 'SOL' }).conditions).toMatchObject({ AND: [{ method: 'rsi', args: { symbol: 'SOL' } }] });
  });

  it('asks which account when a post has no handle, and reads a handle by intent', () => {
    expect(interpret('when Elon Musk tweets about doge', { now: NOW }).questions[0]).toContain('which account');
    expect(interpret('when Michael Saylor posts about bitcoin', { now: NOW }).questions[0]).toContain('which account should I watch? Give its @handle');
    expect(interpret('when @saylor buys more bitcoin', { now: NOW }).questions[0]).toBe('Do you mean a post by @saylor? Say "a post by @saylor about buys more bitcoin".');
    const routed = interpret('if @VitalikButerin is posting on X about the roadmap', { now: NOW });
    expect(routed.conditions).toEqual({ AND: [{ source: 'tweet', args: { username: 'VitalikButerin', text: 'is posting on X about the roadmap', minConfidence: 80 } }] });
  });

  it('refuses indicator states that do not apply, and timeframes that do not exist', () => {
    expect(interpret('BTC price is oversold', { now: NOW }).questions[0]).toContain('"oversold" is defined for RSI');
    expect(interpret('BTC RSI below 30 on the 10m chart', { now: NOW }).questions[0]).toContain('instead of 10m');
  });
});
