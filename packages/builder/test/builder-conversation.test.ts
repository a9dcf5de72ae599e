import { validate, type QueryRequest } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { QueryBuilder, type BuilderReply } from '../src/index.js';
import { jsonBlocks } from '../src/testing.js';

/** docs/builder.md, "Sessions": follow-ups amend the current query; questions are answered in the next turn. */

const NOW = Date.UTC(2026, 0, 15, 12, 0);

/** Runs a conversation, storing the state as JSON between turns as the host does. */
async function converse(messages: string[], mode: 'api-key' | 'payment' = 'api-key'): Promise<BuilderReply[]> {
  const builder = new QueryBuilder({ mode, now: () => NOW });
  const replies: BuilderReply[] = [];
  let stored: string | undefined;
  for (const message of messages) {
    const reply = await builder.reply({ message, state: stored === undefined ? undefined : JSON.parse(stored) });
    stored = JSON.stringify(reply.state);
    replies.push(reply);
  }
  return replies;
}

function query(reply: BuilderReply | undefined): QueryRequest {
  expect(reply?.query, reply?.markdown).toBeDefined();
  const request = reply?.query as QueryRequest;
  expect(validate(request, { now: NOW }).valid).toBe(true);
  return request;
}

const leaf = (request: QueryRequest, index = 0) => (request.query.conditions as unknown as { AND: Array<Record<string, unknown>> }).AND[index];

describe('amending the current query', () => {
  it('replaces the threshold, adds a webhook, sets the expiry, adds and-/or-conditions, removes an action', async () => {
    const replies = await converse([
      'Alert me when BTC is above 65k',
      'use 70k instead',
      'also send it to my webhook https://example.com/hook',
      'make it expire in 2 days',
      'and only if RSI is below 30',
      'or if ETH drops 10% in 1h',
      'remove the webhook',
    ]);
    expect(leaf(query(replies[0]))).toMatchObject({ operator: '>', value: 65000 });

    const threshold = query(replies[1]);
    expect(leaf(threshold)).toMatchObject({ source: 'price', args: { symbol: 'BTC' }, operator: '>', value: 70000 });
    expect(threshold.query.actions[0]?.params).toEqual({ message: 'Triggered: BTC price above 70,000' });
    expect(threshold.title).toBe('BTC price above 70,000');
    expect(replies[1]?.markdown).toContain('I updated the query');

    expect(query(replies[2]).query.actions.map((action) => action.type)).toEqual(['notify', 'webhook']);
    expect(query(replies[2]).query.actions[1]?.params).toEqual({ url: 'https://example.com/hook' });

    const expiring = query(replies[3]);
    expect(expiring.query.expiresIn).toBe('2d');
    expect(expiring.query.actions).toHaveLength(2);

    const both = query(replies[4]);
    expect(both.query.conditions).toEqual({
      AND: [
        { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 70000 },
        { source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '1h', period: 14 }, operator: '<', value: 30 },
      ],
    });
    expect(both.query.expiresIn).toBe('2d');

    const either = query(replies[5]);
    expect(either.query.conditions).toEqual({
      OR: [both.query.conditions, { source: 'price', method: 'change', args: { symbol: 'ETH', period: '1h' }, operator: '<=', value: -10 }],
    });

    expect(query(replies[6]).query.actions.map((action) => action.type)).toEqual(['notify']);
  });

  it('swaps the symbol everywhere and moves indicators to another timeframe', async () => {
    const replies = await converse(['when the RSI of BTC is below 30 buy $200 of BTC on binance', 'use ETH instead', 'on the 4h chart instead']);
    const swapped = query(replies[1]);
    expect(leaf(swapped)).toMatchObject({ method: 'rsi', args: { symbol: 'ETH', timeframe: '1h' } });
    expect(swapped.query.actions[0]?.params).toMatchObject({ symbol: 'ETH', exchange: 'binance', amountUsd: 200 });
    expect(leaf(query(replies[2]))).toMatchObject({ args: { symbol: 'ETH', timeframe: '4h', period: 14 } });
  });

  it('patches the order with modifiers said later, and keeps a title the user gave', async () => {
    const replies = await converse(["if SOL drops below 150 buy 10 SOL on bybit, title 'SOL dip'", 'set the stop loss at 140 and use 3x leverage', 'use 145 instead']);
    const patched = query(replies[1]);
    expect(patched.query.actions[0]?.params).toEqual({ exchange: 'bybit', symbol: 'SOL', side: 'buy', size: 10, stopLoss: { price: 140 }, leverage: 3 });
    expect(patched.title).toBe('SOL dip');
    const moved = query(replies[2]);
    expect(leaf(moved)).toMatchObject({ operator: '<', value: 145 });
    expect(moved.title).toBe('SOL dip');
  });

  it('replaces the actions with "instead", and starts a new query for a new subject', async () => {
    const replies = await converse(['when BTC > 70k send it to https://example.com/a', 'notify me instead', 'alert me when ETH is below 3000']);
    expect(query(replies[1]).query.actions.map((action) => action.type)).toEqual(['notify']);
    const fresh = query(replies[2]);
    expect(fresh.query.conditions).toEqual({ AND: [{ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: '<', value: 3000 }] });
    expect(replies[2]?.markdown).toContain('Here is your query');
  });

  it('edits the threshold a follow-up names, and an added order trades where the prices are read', async () => {
    const replies = await converse(['when BTC on binance is above 70k and RSI below 30 notify me', 'change the threshold to 65k', 'actually make the RSI 25', 'buy $100 of BTC as well']);
    expect(leaf(query(replies[1]), 0)).toMatchObject({ method: 'current', value: 65000 });
    expect(leaf(query(replies[1]), 1)).toMatchObject({ method: 'rsi', value: 30 });
    expect(leaf(query(replies[2]), 1)).toMatchObject({ method: 'rsi', args: { period: 14 }, value: 25 });
    expect(replies[2]?.markdown).toContain('changed "BTC 1h RSI(14) below 30" to 25');
    expect(query(replies[3]).query.actions[1]).toMatchObject({ type: 'market_order', params: { exchange: 'binance', symbol: 'BTC', amountUsd: 100 } });
  });

  it('"start over" drops the query', async () => {
    const replies = await converse(['when BTC > 70k notify me', 'start over', 'use 80k instead']);
    expect(replies[1]?.query).toBeUndefined();
    expect(replies[1]?.state.query).toBeUndefined();
    expect(replies[2]?.query).toBeUndefined();
  });
});

describe('questions and their answers', () => {
  it('asks for the Telegram chat, then reads the answer with the message it answers', async () => {
    const replies = await converse(['when BTC > 70k send it to telegram', '-1001234567890']);
    expect(replies[0]?.query).toBeUndefined();
    expect(replies[0]?.markdown).toContain('Which Telegram chat');
    expect(jsonBlocks(replies[0]?.markdown ?? '')).toEqual([]);
    expect(replies[0]?.state.pending?.message).toBe('when BTC > 70k send it to telegram');
    const answered = query(replies[1]);
    expect(answered.query.actions[0]).toMatchObject({ type: 'messenger_bot', params: { chatId: '-1001234567890', botToken: '<BOT_TOKEN>' } });
    expect(replies[1]?.validation?.warnings.join('\n')).toContain('botToken');
    expect(replies[1]?.markdown).toContain('**Warnings**');
  });

  it('asks how much to buy, then takes "$500"', async () => {
    const replies = await converse(['buy BTC when RSI is oversold', '$500']);
    expect(replies[0]?.markdown).toContain('How much should the order buy');
    expect(query(replies[1]).query.actions[0]?.params).toEqual({ exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 500 });
    expect(replies[1]?.markdown).toContain('`paper`');
  });

  it('asks whether a plain number is dollars or coins', async () => {
    const [reply] = await converse(['when ETH < 3000 buy 500 of ETH']);
    expect(reply?.query).toBeUndefined();
    expect(reply?.markdown).toContain('Is 500 a dollar amount or 500 ETH?');
  });

  it('quotes the words it did not understand, shows what it did, and "yes" adopts it', async () => {
    const replies = await converse(['when BTC blorps above 70k', 'yes']);
    expect(replies[0]?.query).toBeUndefined();
    expect(replies[0]?.markdown).toContain('I did not understand "blorps"');
    expect(replies[0]?.markdown).toContain('BTC price above 70,000');
    expect(replies[0]?.markdown).toContain('Reply "yes"');
    expect(leaf(query(replies[1]))).toMatchObject({ value: 70000 });
    expect(replies[1]?.markdown).toContain('as I understood it');
  });

  it('a rephrased request replaces the one that was not understood', async () => {
    const replies = await converse(['ping me if bitcoin goes kaboom', 'alert me when BTC drops 10% in 1h']);
    expect(replies[0]?.markdown).toContain('"kaboom"');
    expect(leaf(query(replies[1]))).toMatchObject({ method: 'change', value: -10 });
  });

  it('explains a request the validator refuses instead of returning it', async () => {
    const [reply] = await converse(['BTC above 70k, expires in 60 days']);
    expect(reply?.query).toBeUndefined();
    expect(reply?.markdown).toContain('does not pass validation');
    expect(reply?.markdown).toContain('expiresIn');
  });

  it('reads a stored state of another shape as a new conversation', async () => {
    const builder = new QueryBuilder({ mode: 'api-key', now: () => NOW });
    for (const state of [null, 'x', { version: 2, query: 1 }, { version: 1, query: { query: 'nope' }, turns: -1 }]) {
      const reply = await builder.reply({ message: 'use 70k instead', state });
      expect(reply.query).toBeUndefined();
      expect(reply.state.version).toBe(1);
    }
  });
});
