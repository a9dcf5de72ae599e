import { describe, expect, it } from 'vitest';
import { type QueryRequest, validate } from '@eql/core';

const NOW = Date.parse('2026-01-05T00:00:00Z');
const request = (condition: Record<string, unknown>, expiresIn = '24h'): QueryRequest =>
  ({ query: { conditions: { AND: [condition] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn } }) as unknown as QueryRequest;
const codes = (result: ReturnType<typeof validate>) => result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.path, d.message]);

describe('validation against what a host serves', () => {
  const served = { symbols: ['BTC', 'ETH', 'SOL'], history: true };

  it('refuses a symbol no feed serves, with the served list, on the condition and on a live operand', () => {
    const doge = validate(request({ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }), { now: NOW, served });
    expect(doge.valid).toBe(false);
    expect(codes(doge)).toEqual([['unserved-symbol', '/query/conditions/AND/0/args/symbol', 'no feed of this host serves prices of DOGE; served: BTC, ETH, SOL']]);
    const operand = validate(request({ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: { source: 'ta', method: 'ema', args: { symbol: 'PEPE' } } }), { now: NOW, served });
    expect(codes(operand).map(([code, path]) => [code, path])).toEqual([['unserved-symbol', '/query/conditions/AND/0/value/args/symbol']]);
  });

  it('serves a symbol by its asset: BTC/USDT and BTC-PERP are BTC; without served data nothing is checked', () => {
    for (const symbol of ['BTC/USDT', 'BTC-PERP', 'btc']) expect(validate(request({ source: 'ta', method: 'rsi', args: { symbol }, operator: '<', value: 30 }), { now: NOW, served }).valid).toBe(true);
    expect(validate(request({ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }), { now: NOW }).valid).toBe(true);
  });

  it('refuses a timeframe the host does not compute', () => {
    const result = validate(request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '3d' }, operator: '<', value: 30 }), { now: NOW, served: { timeframes: ['1m', '1h', '1d'] } });
    expect(codes(result).map(([code, path]) => [code, path])).toEqual([['unserved-timeframe', '/query/conditions/AND/0/args/timeframe']]);
  });

  it('without history, a look-back longer than the lifetime is an error; with history it is not', () => {
    const ema = request({ source: 'ta', method: 'ema', args: { symbol: 'BTC', timeframe: '4h', period: 50 }, operator: '>', value: 1 }, '7d');
    const cold = validate(ema, { now: NOW, served: { history: false } });
    expect(codes(cold)).toEqual([
      ['lookback-exceeds-lifetime', '/query/conditions/AND/0', 'ema on 4h candles needs 200h of prices before its value is defined, longer than the query lives (7d), and this host has no history to start from'],
    ]);
    expect(validate(ema, { now: NOW, served: { history: true } }).valid).toBe(true);
    const change = request({ source: 'price', method: 'change', args: { symbol: 'BTC', period: '24h' }, operator: '>', value: 5 }, '12h');
    expect(codes(validate(change, { now: NOW, served: { history: false } })).map(([code]) => code)).toEqual(['lookback-exceeds-lifetime']);
    expect(validate(request({ source: 'ta', method: 'rsi', args: { symbol: 'BTC' }, operator: '<', value: 30 }), { now: NOW, served: { history: false } }).valid).toBe(true);
  });
});
