import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonObject, guardQuotes, parseAnalysis, parseTrades, tradeIntent } from '../src/index.js';

describe('tradeIntent: the offline analyst trades only on an explicit, unconditional instruction', () => {
  it.each([
    ['Buy $ETH now.', undefined, { side: 'buy', symbol: 'ETH' }],
    ['Sell it all.', 'btc', { side: 'sell', symbol: 'BTC' }],
    ['Go long $SOL with $500.', undefined, { side: 'buy', symbol: 'SOL', amountUsd: 500 }],
    ['Open a short on $HYPE, 10% of the balance.', undefined, { side: 'sell', symbol: 'HYPE', positionSizePercent: 10 }],
    ['short $DOGE', undefined, { side: 'sell', symbol: 'DOGE' }],
    ['Buy 1,250 USDC of $ETH', undefined, { side: 'buy', symbol: 'ETH', amountUsd: 1250 }],
  ])('%j (asset %s) signals %j', (prompt, symbol, expected) => {
    const intent = tradeIntent(prompt, symbol);
    expect(intent.signal).toMatchObject(expected);
    expect(intent.signal?.reason).toContain('explicit instruction');
  });

  it.each([
    ['Analyse what this means and what to do.', 'no buy or sell instruction'],
    ['If sentiment is bullish, buy $ETH.', 'conditional'],
    ['Should I buy $ETH?', 'conditional'],
    ["Don't buy $ETH yet.", 'rules the trade out'],
    ['Buy $ETH or sell $BTC', 'both buying and selling'],
    ['Buy the dip on $ETH and $BTC', 'no single symbol'],
    ['Buy now', 'no single symbol'],
    ['How long will this last', 'no buy or sell instruction'],
    ['Short-term view please', 'no buy or sell instruction'],
  ])('%j gives no signal (%s)', (prompt, why) => {
    const intent = tradeIntent(prompt);
    expect(intent.signal).toBeUndefined();
    expect(intent.note).toContain(why);
  });
});

describe('guardQuotes', () => {
  const source = { text: 'FlowEx exploit: 420 million drained, withdrawals paused, $ETH bridge affected by the bug', link: 'https://x.com/a/status/1' };

  it('replaces a verbatim run of 8 or more words by the link, whatever the case and punctuation', () => {
    const reply = 'Reports say "flowex EXPLOIT 420 million drained; withdrawals paused, $ETH bridge" and more.';
    expect(guardQuotes(reply, [source])).toBe('Reports say "[post](https://x.com/a/status/1)" and more.');
  });

  it('keeps short quotes and unrelated text', () => {
    const reply = 'The "withdrawals paused" part matters; the exploit drained 420 million.';
    expect(guardQuotes(reply, [source])).toBe(reply);
  });

  it('a reply never keeps 8 consecutive words of a source (property)', () => {
    const words = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'flowex', 'exploit', 'eth', 'bridge', 'the', 'a');
    fc.assert(
      fc.property(fc.array(words, { minLength: 8, maxLength: 30 }), fc.array(words, { maxLength: 10 }), fc.array(words, { maxLength: 10 }), (post, before, after) => {
        const reply = [...before, ...post, ...after].join(' ');
        const guarded = guardQuotes(reply, [{ text: post.join(' '), link: 'https://x.com/p/status/9' }]);
        const left = guarded.toLowerCase().match(/[a-z]+/g) ?? [];
        const grams = new Set<string>();
        for (let i = 0; i + 8 <= post.length; i++) grams.add(post.slice(i, i + 8).join(' '));
        for (let i = 0; i + 8 <= left.length; i++) expect(grams.has(left.slice(i, i + 8).join(' '))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('model JSON replies', () => {
  it('findJsonObject takes the first object that parses, fenced or in prose, braces in strings respected', () => {
    expect(findJsonObject('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(findJsonObject('Here: {"text": "a } brace", "n": 2} done')).toEqual({ text: 'a } brace', n: 2 });
    expect(findJsonObject('{broken} then {"ok": true}')).toEqual({ ok: true });
    expect(findJsonObject('[1, 2]')).toBeUndefined();
    expect(findJsonObject('nothing')).toBeUndefined();
  });

  it('findJsonObject never throws (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => void findJsonObject(text)), { numRuns: 500 });
  });

  it('parseTrades keeps valid signals only, at most five', () => {
    const many = Array.from({ length: 8 }, () => ({ side: 'buy', symbol: 'ETH' }));
    expect(parseTrades(many)).toHaveLength(5);
    expect(parseTrades([{ side: 'sell', symbol: 'ETH', size: -1, price: '3000', amountUsd: Number.NaN }])).toEqual([{ side: 'sell', symbol: 'ETH', price: 3000 }]);
    expect(parseTrades('nope')).toEqual([]);
  });

  it('parseAnalysis: JSON without a response is refused; prose is the response', () => {
    expect(() => parseAnalysis('{"trades": []}')).toThrow(/no response text/);
    expect(parseAnalysis('Just words.')).toEqual({ response: 'Just words.', trades: [], structured: false });
  });
});
