import { DAY, HOUR, MINUTE, parseDuration, validate, type QueryRequest } from '@eql/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QueryBuilder, extractRequest, interpret, PHRASE_RULES } from '../src/index.js';
import { ScriptedModel, jsonBlocks } from '../src/testing.js';

/** Laws of the builder: generated phrasings give valid queries that carry the numbers said; no input makes it throw. */

const NOW = Date.UTC(2026, 0, 15, 12, 0);
const builder = new QueryBuilder({ mode: 'api-key', now: () => NOW });

const SYMBOLS: Array<[string, string]> = [
  ['BTC', 'BTC'], ['bitcoin', 'BTC'], ['$ETH', 'ETH'], ['ether', 'ETH'], ['solana', 'SOL'], ['SOL', 'SOL'], ['dogecoin', 'DOGE'], ['PEPE', 'PEPE'], ['XRP', 'XRP'],
];
const COMPARATORS: Array<[string, string]> = [
  ['is above', '>'], ['goes over', '>'], ['rises above', '>'], ['is greater than', '>'], ['is at least', '>='], ['is below', '<'], ['drops below', '<'],
  ['falls under', '<'], ['is at most', '<='], ['crosses above', 'crosses_above'], ['breaks above', 'crosses_above'], ['crosses below', 'crosses_below'],
  ['falls through', 'crosses_below'], ['>', '>'], ['<=', '<='],
];
/** A positive amount and the ways to write it. */
const amounts = fc.oneof(
  fc.integer({ min: 1, max: 999_999 }).map((value) => ({ value, text: String(value) })),
  fc.integer({ min: 1, max: 999_999 }).map((value) => ({ value, text: value.toLocaleString('en-US') })),
  fc.integer({ min: 1, max: 999_999 }).map((value) => ({ value, text: `$${value.toLocaleString('en-US')}` })),
  fc.integer({ min: 1, max: 999 }).map((value) => ({ value: value * 1000, text: `${value}k` })),
  fc.integer({ min: 11, max: 99 }).map((tenths) => ({ value: tenths * 100_000, text: `${tenths / 10}m` })),
  fc.integer({ min: 1, max: 99_999 }).map((hundredths) => ({ value: hundredths / 100, text: (hundredths / 100).toString() })),
);
const ACTIONS: Array<[string, string]> = [
  ['notify me', 'notify'], ['let me know', 'notify'], ['send it to https://example.com/hook', 'webhook'], ['post to https://hooks.example.org/eql', 'webhook'],
  ['send it to telegram chat -1001234567890', 'messenger_bot'], ['analyze it', 'llm'], ['', 'notify'],
];
const EXPIRIES: Array<[string, number | undefined]> = [
  ['', undefined], ['for 3 days', 3 * DAY], ['expires in 12h', 12 * HOUR], ['for the next 2 days', 2 * DAY], ['valid for 1 week', 7 * DAY], ['expire after 90 minutes', 90 * MINUTE],
];

describe('generated phrasings (symbol × comparator × number × action × expiry)', () => {
  it('reply with one JSON block that validates and carries the symbol, operator, number, action and expiry', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SYMBOLS),
        fc.constantFrom(...COMPARATORS),
        amounts,
        fc.constantFrom(...ACTIONS),
        fc.constantFrom(...EXPIRIES),
        fc.constantFrom('when', 'if', 'alert me when', 'once'),
        async ([symbolText, symbol], [comparatorText, operator], amount, [actionText, actionType], [expiryText, expiryMs], lead) => {
          const message = `${lead} ${symbolText} ${comparatorText} ${amount.text}${actionText === '' ? '' : `, ${actionText}`}${expiryText === '' ? '' : `, ${expiryText}`}`;
          const reply = await builder.reply({ message });
          const blocks = jsonBlocks(reply.markdown);
          expect(blocks, message).toHaveLength(1);
          const request = blocks[0] as QueryRequest;
          expect(validate(request, { now: NOW }).valid).toBe(true);
          expect(request).toEqual(reply.query);
          const [condition] = (request.query.conditions as unknown as { AND: Array<Record<string, unknown>> }).AND;
          expect(condition).toEqual({ source: 'price', method: 'current', args: { symbol }, operator, value: amount.value });
          const asked = lead.startsWith('alert me') && actionType !== 'notify' ? [actionType, 'notify'] : [actionType];
          if (actionType === 'webhook' || actionType === 'messenger_bot') asked.reverse();
          expect(request.query.actions.map((action) => action.type)).toEqual(asked);
          expect(parseDuration(request.query.expiresIn)).toBe(expiryMs);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('percent moves carry the percentage, the sign of the direction and the window', async () => {
    const UP = ['up', 'rises', 'pumps', 'gains', 'jumps'];
    const DOWN = ['down', 'drops', 'falls', 'dumps', 'declines'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SYMBOLS), fc.boolean(), fc.integer({ min: 1, max: 90 }), fc.constantFrom(['in 1h', '1h'], ['within 24 hours', '24h'], ['over the last 7 days', '7d'], ['in 15 minutes', '15m']), async ([symbolText, symbol], up, percent, [windowText, period]) => {
        const verb = up ? UP[percent % UP.length] : DOWN[percent % DOWN.length];
        const reply = await builder.reply({ message: `alert me if ${symbolText} ${verb} ${percent}% ${windowText}` });
        const [condition] = (reply.query?.query.conditions as { AND: unknown[] } | undefined)?.AND ?? [];
        expect(condition, reply.markdown).toEqual({ source: 'price', method: 'change', args: { symbol, period }, operator: up ? '>=' : '<=', value: up ? percent : -percent });
      }),
      { numRuns: 150 },
    );
  });
});

describe('robustness', () => {
  const check = async (message: string, mode: 'api-key' | 'payment' = 'api-key') => {
    const reply = await new QueryBuilder({ mode, now: () => NOW }).reply({ message });
    expect(typeof reply.markdown).toBe('string');
    expect(reply.markdown.length).toBeGreaterThan(0);
    const blocks = jsonBlocks(reply.markdown);
    expect(blocks.length).toBeLessThanOrEqual(1);
    if (reply.query) {
      expect(validate(reply.query, { mode, now: NOW }).valid).toBe(true);
      expect(blocks).toEqual([reply.query]);
    } else expect(blocks).toEqual([]);
    JSON.parse(JSON.stringify(reply.state));
  };

  it('never throws on arbitrary strings, and any query it returns validates', async () => {
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 200 }), async (message) => check(message)), { numRuns: 300 });
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 120 }), async (message) => check(message)), { numRuns: 200 });
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 120 }), async (message) => check(message, 'payment')), { numRuns: 200 });
  });

  it('never throws on soups of the words it knows, in either mode', async () => {
    const vocabulary = [
      ...new Set(
        'when if and or then buy sell long short btc eth sol 70k $500 5% 4h 1h daily rsi ema macd bollinger upper band above below crosses drops up down in within for at least every day 9:00 notify webhook https://example.com/x telegram -1001234567890 @elonmusk tweets about news llm thinks sentiment bullish expires 3 days cooldown times title instead also use remove the stop loss take profit 5x leverage on binance limit at 60k between 20 % ( ) , .'.split(
          ' ',
        ),
      ),
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...vocabulary), { maxLength: 25 }), fc.constantFrom<'api-key' | 'payment'>('api-key', 'payment'), async (soup, mode) => check(soup.join(' '), mode)),
      { numRuns: 400 },
    );
  });

  it('reads any stored state without throwing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (state) => {
        const reply = await builder.reply({ message: 'use 70k instead', state });
        expect(reply.state.version).toBe(1);
      }),
      { numRuns: 150 },
    );
  });

  it('a model that answers garbage never makes it throw: its question is passed on, else a valid query comes back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string(), fc.json().map((json) => `\`\`\`json\n${json}\n\`\`\``)), { minLength: 3, maxLength: 3 }), async (script) => {
        const [first] = script as [string];
        const reply = await new QueryBuilder({ model: new ScriptedModel(script), mode: 'api-key', now: () => NOW }).reply({ message: 'alert me when BTC is above 70k' });
        // A first reply without any JSON that asks something is the model's question, passed on.
        const asked = first.includes('?') && JSON.stringify(extractRequest(first)) === JSON.stringify({ problem: 'the reply has no ```json code block' });
        if (asked) {
          expect(reply.query).toBeUndefined();
          expect(reply.markdown).toBe(`${first.trim()}\n`);
        } else {
          expect(reply.query).toBeDefined();
          expect(validate(reply.query, { now: NOW }).valid).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('reads a long message (150 clauses) to the end: no backtracking blow-up (the test timeout would catch one)', () => {
    const message = Array.from({ length: 150 }, (_, index) => `news about event ${index} and BTC above ${index + 1}k`).join(', ');
    const reading = interpret(message, { now: NOW });
    expect(reading).toBeDefined();
  });

  it('has a rule table of named phrase rules', () => {
    const names = PHRASE_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['measure', 'level or crossing', 'post by account', 'news', 'order', 'expiry', 'webhook']));
  });
});
