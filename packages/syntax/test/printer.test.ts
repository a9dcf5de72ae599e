import { describe, expect, it } from 'vitest';
import { parseText, PrintError, printText, toJson, toText } from '../src/index.js';

const condition = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 };
const notify = { stepId: 'n', type: 'notify', params: { message: 'x' } };

function request(query: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { ...extra, query: { conditions: { AND: [condition] }, actions: [notify], ...query } };
}

function roundTrip(value: unknown): unknown {
  const parsed = parseText(printText(value));
  expect(parsed.errors).toEqual([]);
  return parsed.value;
}

describe('printText', () => {
  it('prints the canonical layout', () => {
    expect(printText(request({ expiresIn: '24h', repeat: { cooldown: '1h', maxTriggers: 3 } }, { title: 'T', description: 'D' }))).toBe(
      'title "T"\ndescription "D"\nwhen price of BTC > 100000\nthen\n  notify "x" as n\nexpires in 24h\nrepeat after 1h (maxTriggers 3)\n',
    );
  });

  it.each([
    ['timeframe given as its default', { source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1h' }, operator: '>', value: 70 }],
    ['timeframe left out', { source: 'ta', method: 'rsi', args: { symbol: 'BTC' }, operator: '>', value: 70 }],
    ['minConfidence 80 given', { source: 'tweet', args: { username: 'elonmusk', text: 'dogecoin', minConfidence: 80 } }],
    ['llm method given', { source: 'llm', method: 'athena_condition', args: { query: 'Q?', period: '1h' } }],
    ['llm method left out', { source: 'llm', args: { query: 'Q?', period: '1h' } }],
    ['speed fast given', { source: 'llm', args: { query: 'Q?', period: '1h', speed: 'fast' } }],
    ['a confidence test', { source: 'news', args: { text: 'ETF' }, operator: '>=', value: 90 }],
    ['holdFor on a leaf', { ...condition, holdFor: '5m' }],
  ])('keeps presence: %s', (_label, member) => {
    const value = request({ conditions: { AND: [member] } });
    expect(roundTrip(value)).toEqual(value);
  });

  it('tells params {} of a callback from no params', () => {
    const withParams = request({ actions: [{ stepId: 'l', type: 'llm', params: { callback: { action: { type: 'notify', params: {} } } } }] });
    const without = request({ actions: [{ stepId: 'l', type: 'llm', params: { callback: { action: { type: 'notify' } } } }] });
    expect(printText(withParams)).toContain('llm callback notify () as l');
    expect(printText(without)).toContain('llm callback notify as l');
    expect(roundTrip(withParams)).toEqual(withParams);
    expect(roundTrip(without)).toEqual(without);
  });

  it('keeps numbers exact', () => {
    for (const value of [0.1, -0.5, 1e21, 5e-324, 123456789.123, -0, Number.MAX_SAFE_INTEGER + 2, 1 / 3]) {
      const value_ = request({ conditions: { AND: [{ ...condition, value }] } });
      const back = roundTrip(value_) as { query: { conditions: { AND: Array<{ value: number }> } } };
      expect(Object.is(back.query.conditions.AND[0]?.value, value)).toBe(true);
    }
  });

  it('quotes names that are reserved words or not plain words, and strings with escapes', () => {
    const tricky = request(
      {
        conditions: { AND: [{ ...condition, args: { symbol: 'when' } }, { ...condition, args: { symbol: '1000PEPE' } }] },
        actions: [
          { stepId: 'then', type: 'notify', params: { message: 'line\nbreak "quoted" \\ \u0000 \u2028 \ud800' } },
          { stepId: 'buy', type: 'notify', params: { message: 'y' } },
        ],
      },
      { title: '# not a comment' },
    );
    const text = printText(tricky);
    expect(text).toContain('price of "when" > 100000');
    expect(text).toContain('price of "1000PEPE" > 100000');
    expect(text).toContain('as "then"');
    expect(text).toContain('as buy');
    expect(roundTrip(tricky)).toEqual(tricky);
  });

  it('writes orders as sentences and exit levels as prices or percents', () => {
    const order = request({
      actions: [
        {
          stepId: 'entry',
          type: 'limit_order',
          params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'sell', positionSizePercent: 25, price: 101000, takeProfit: { price: 95000 }, stopLoss: { percent: 3 } },
        },
      ],
    });
    expect(printText(order)).toContain('limit sell 25% of BTC-PERP on paper at 101000 (takeProfit 95000, stopLoss 3%) as entry');
    expect(roundTrip(order)).toEqual(order);
  });

  it('keeps several sizes (invalid) by writing the others as parameters', () => {
    const order = request({ actions: [{ stepId: 'o', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 1, amountUsd: 5 } }] });
    expect(printText(order)).toContain('market buy $5 of BTC on paper (size 1) as o');
    expect(roundTrip(order)).toEqual(order);
  });

  it('refuses, with the pointer, what the text form cannot say', () => {
    const cases: Array<[unknown, string]> = [
      [{ query: { conditions: { AND: [condition] }, actions: [notify], extra: 1 } }, '/query/extra'],
      [request({ conditions: { AND: [{ ...condition, source: 'onchain' }] } }), '/query/conditions/AND/0/source'],
      [request({ conditions: { AND: [{ source: 'tweet', method: 'x', args: { username: 'a', text: 'b' } }] } }), '/query/conditions/AND/0/method'],
      [request({ conditions: { AND: [condition], OR: [condition] } }), '/query/conditions'],
      [request({ actions: [{ ...notify, type: 'email' }] }), '/query/actions/0/type'],
      [request({ actions: [{ stepId: 'o', type: 'market_order', params: { exchange: 'paper', takeProfit: 5 } }] }), '/query/actions/0/params/takeProfit'],
      [[1, 2], ''],
      [request({ actions: [{ stepId: 'w', type: 'webhook', params: { url: 'https://x.example', payload: JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) as unknown } }] }), '/query/actions/0/params/payload' + '/a'.repeat(65)],
    ];
    for (const [value, pointer] of cases) {
      let caught: unknown;
      try {
        printText(value);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PrintError);
      expect((caught as PrintError).pointer).toBe(pointer);
    }
  });
});

describe('toText and toJson', () => {
  it('convert both ways', () => {
    const value = request({ expiresIn: '1h' });
    const text = toText(value);
    expect(text).toEqual({ ok: true, text: 'when price of BTC > 100000\nthen\n  notify "x" as n\nexpires in 1h\n' });
    if (!text.ok) return;
    const json = toJson(text.text);
    expect(json.ok && (JSON.parse(json.text) as unknown)).toEqual(value);
  });

  it('report problems', () => {
    expect(toText({ query: { conditions: {}, actions: [] } })).toMatchObject({ ok: false, problems: [{ pointer: '/query/conditions' }] });
    const broken = toJson('when price of > 1 then notify "x"');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.problems[0]?.issue?.range.start).toMatchObject({ line: 1, column: 15 });
  });
});
