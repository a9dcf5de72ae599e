import { isTradeFlavouredAction, validate } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { QueryBuilder } from '../src/index.js';
import { jsonBlocks } from '../src/testing.js';

/** Spec 2.3 and 4.5: the keyless payment model refuses trade actions; the builder explains and offers the non-trade version. */

const NOW = Date.UTC(2026, 0, 15, 12, 0);
const payment = new QueryBuilder({ mode: 'payment', now: () => NOW });
const apiKey = new QueryBuilder({ mode: 'api-key', now: () => NOW });

describe('payment mode', () => {
  it('refuses an order with an explanation and offers the notification version', async () => {
    const message = 'if ETH drops below 3000, buy $500 of ETH with 5x leverage on binance';
    const paid = await payment.reply({ message });
    expect(paid.markdown).toContain('Orders need an API key');
    expect(paid.markdown).toContain('market buy $500 of ETH at market on binance (5x leverage)');
    expect(paid.markdown).not.toContain('`paper`');
    expect(paid.query?.query.actions).toEqual([
      { stepId: 'notify-1', type: 'notify', params: { message: 'Triggered: ETH price below 3,000 (an order was asked; orders need an API key)' } },
    ]);
    expect(validate(paid.query, { mode: 'payment', now: NOW }).valid).toBe(true);
    expect(jsonBlocks(paid.markdown)).toEqual([paid.query]);

    const keyed = await apiKey.reply({ message });
    expect(keyed.query?.query.actions[0]).toMatchObject({ type: 'market_order', params: { exchange: 'binance', amountUsd: 500, leverage: 5 } });
    expect(keyed.query?.query.conditions).toEqual(paid.query?.query.conditions);
  });

  it('keeps the other actions and takes only the orders out', async () => {
    const reply = await payment.reply({ message: 'when SOL crosses above 200 send it to https://example.com/hook and limit sell 10 SOL at 210 on bybit' });
    expect(reply.query?.query.actions).toEqual([{ stepId: 'webhook-1', type: 'webhook', params: { url: 'https://example.com/hook' } }]);
    expect(reply.markdown).toContain('limit sell 10 SOL at 210 on bybit');
  });

  it('never returns a trade-flavoured action, whatever was asked', async () => {
    for (const message of ['close my long when BTC < 60k', 'when BTC > 70k analyze it and buy 0.1 BTC', 'short 2 ETH when ETH breaks below 3k, take profit 10%']) {
      const reply = await payment.reply({ message });
      expect(reply.query, reply.markdown).toBeDefined();
      for (const action of reply.query?.query.actions ?? []) expect(isTradeFlavouredAction(action)).toBe(false);
      expect(validate(reply.query, { mode: 'payment', now: NOW }).valid).toBe(true);
      expect(reply.markdown).toContain('API key');
    }
  });

  it('quotes credits in both modes', async () => {
    const message = 'when the market sentiment turns bullish, notify me';
    const paid = await payment.reply({ message });
    const keyed = await apiKey.reply({ message });
    expect(keyed.validation?.estimatedCost).toEqual({ credits: 125, price: '$1.125' });
    expect(keyed.markdown).toContain('**125 credits** ($1.125)');
    expect(paid.validation?.estimatedCost).toBeUndefined();
    expect(paid.markdown).toContain('**125 credits** ($1.125) (paid per request in payment mode)');
  });
});
