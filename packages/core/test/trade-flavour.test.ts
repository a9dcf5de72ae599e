import { describe, expect, it } from 'vitest';
import { checkPerpetualSymbol, classifyRequestActions, isTradeFlavouredAction, isTradeFlavouredQuery } from '@eql/core';

describe('trade flavour (spec 2.3)', () => {
  it('is market_order, limit_order, or llm with one of those as callback', () => {
    expect(isTradeFlavouredAction({ type: 'market_order' })).toBe(true);
    expect(isTradeFlavouredAction({ type: 'limit_order' })).toBe(true);
    expect(isTradeFlavouredAction({ type: 'llm', params: { callback: { action: { type: 'market_order' } } } })).toBe(true);
    expect(isTradeFlavouredAction({ type: 'llm', params: { callback: { action: { type: 'notify' } } } })).toBe(false);
    expect(isTradeFlavouredAction({ type: 'webhook' })).toBe(false);
    expect(isTradeFlavouredAction(null)).toBe(false);
    expect(isTradeFlavouredQuery({ actions: [{ type: 'notify' }, { type: 'limit_order' }] })).toBe(true);
    expect(isTradeFlavouredQuery({ actions: 'x' })).toBe(false);
  });

  it('classifies request bodies for signing', () => {
    expect(classifyRequestActions({ query: { actions: [{ type: 'notify' }] } })).toBe('notification');
    expect(classifyRequestActions({ query: { actions: [{ type: 'notify' }, 7] } })).toBe('unknown');
    expect(classifyRequestActions({ query: { actions: [{ type: 'llm', params: { callback: 'x' } }] } })).toBe('unknown');
    expect(classifyRequestActions({ query: { actions: [{ type: 'limit_order' }, { type: 'zzz' }] } })).toBe('trade');
    expect(classifyRequestActions({})).toBe('none');
  });
});

describe('perpetual symbol forms', () => {
  it.each(['BTC', 'ETH', '1000PEPE', 'BTC-PERP', 'btc-perp', 'BTC/USDT:USDT', 'BTC/USD:BTC', 'BTC_USDT'])('accepts %s', (symbol) => {
    expect(checkPerpetualSymbol(symbol)).toEqual({ ok: true });
  });

  it.each([
    ['BTC/USDT', 'BTC/USDT:USDT'],
    ['ETH/USDC', 'ETH/USDC:USDC'],
    ['BTC-USD', 'BTC-PERP'],
  ])('refuses the spot pair %s and suggests %s', (symbol, suggestion) => {
    expect(checkPerpetualSymbol(symbol)).toEqual({ ok: false, suggestion });
  });
});
