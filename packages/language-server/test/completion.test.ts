import { eqlSchema } from '@eql/core';
import { MEASURES } from '@eql/syntax';
import { describe, expect, it } from 'vitest';
import { createEqlServices } from '../src/index.js';
import { withCursor } from './support/lsp-client.js';
import { completionLabels, openDocument } from './support/services.js';

const measures = [...MEASURES.keys()];
const starters = [...measures, 'tweet by', 'news about', 'llm', 'at', 'every', 'all of', 'any of'];

describe('completion in the text form', () => {
  it.each([
    ['the start', '|', ['title', 'description', 'when', 'expires in', 'repeat after']],
    ['a clause already given', 'title "x"\n|', ['description', 'when', 'expires in', 'repeat after']],
    ['when', 'when |', starters],
    ['all of', 'when all of\n  |', starters],
    ['a nested group', 'when all of [price of BTC > 1, |', starters],
    ['a typed prefix', 'when rs|', starters],
    ['crosses', 'when price of BTC crosses |', ['above', 'below']],
    ['an operator (a live operand)', 'when price of BTC crosses above |', measures],
    ['a windowed measure', 'when change of BTC |', ['>', '>=', '<', '<=', '==', '!=', 'crosses above', 'crosses below', 'over', '(']],
    ['over', 'when change of BTC over |', ['1h', '4h', '24h', '7d']],
    ['a subject with options', 'when rsi of BTC (period 14) |', ['>', '>=', '<', '<=', '==', '!=', 'crosses above', 'crosses below', '(']],
    ['tweet', 'when tweet |', ['by']],
    ['with', 'when news about "x" with |', ['confidence']],
    ['confidence', 'when news about "x" with confidence |', ['>', '>=', '<', '<=', '==', '!=']],
    ['an llm every', 'when llm "Is it?" every |', ['1h', '4h', '12h', '24h']],
    ['llm options', 'when llm "Is it?" every 1h (|', ['speed', 'minConfidence']],
    ['a speed value', 'when llm "Is it?" every 1h (speed |', ['fast', 'expert', 'adaptive']],
    ['a timeframe value', 'when rsi of BTC (timeframe 4|', ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w']],
    ['options already given', 'when rsi of BTC (timeframe 1h, |', ['period', 'exchange']],
    ['tweet options', 'when tweet by @a about "b" (|', ['minConfidence']],
    ['cron every options', 'when every 1d (|', ['startAt']],
    ['then', 'when price of BTC > 1 then |', ['notify', 'webhook', 'bot', 'llm', 'market buy', 'market sell', 'limit buy', 'limit sell', 'close']],
    ['after a step id', 'when price of BTC > 1 then notify "x" as a\n|', ['notify', 'webhook', 'bot', 'llm', 'market buy', 'market sell', 'limit buy', 'limit sell', 'close', 'title', 'description', 'expires in', 'repeat after']],
    ['notify options', 'when price of BTC > 1 then notify "x" (|', ['title', 'priority']],
    ['a priority', 'when price of BTC > 1 then notify "x" (priority |', ['low', 'normal', 'high']],
    ['webhook options', 'when price of BTC > 1 then webhook "https://x.io" (|', ['headers', 'payload', 'body', 'contentType']],
    ['llm action options', 'when price of BTC > 1 then llm "why?" (|', ['analysisType', 'speed', 'assetMetadata']],
    ['callback', 'when price of BTC > 1 then llm "why?" callback |', ['notify', 'webhook', 'bot', 'market order', 'limit order', 'market buy', 'limit buy']],
    ['market', 'when price of BTC > 1 then market |', ['buy', 'sell', 'order']],
    ['market order options', 'when price of BTC > 1 then market buy $5 of BTC on paper (|', ['leverage', 'reduceOnly', 'takeProfit', 'stopLoss', 'trailingStop']],
    ['a boolean option', 'when price of BTC > 1 then market buy $5 of BTC on paper (reduceOnly |', ['true', 'false']],
    ['repeat options', 'when price of BTC > 1 then notify "x" as a repeat after 1h (|', ['maxTriggers']],
    ['expires', 'when price of BTC > 1 then notify "x" as a expires |', ['in']],
    ['expires in', 'when price of BTC > 1 then notify "x" as a expires in |', ['1h', '24h', '7d', '30d']],
    ['after a condition', 'when all of\n  price of BTC > 1\n  |', ['then', 'for', ...starters]],
    ['inside a string', 'when news about "wh|', []],
    ['inside a comment', '# when |', []],
    ['inside JSON of an option', 'then webhook "u" (payload {"a": |', []],
  ])('after %s', (_what, marked, expected) => {
    expect(completionLabels(marked)).toEqual(expected);
  });

  it('offers the configured symbols after of, quoting those the text form cannot write bare', () => {
    const services = createEqlServices({ settings: { symbols: ['BTC', '1000PEPE', 'on', 'BTC/USDT:USDT'] } });
    const { text, position } = withCursor('when price of |');
    const { parsed } = openDocument(text, { services });
    const items = services.completion.complete(parsed(), position);
    expect(items.map((item) => [item.label, item.textEdit?.newText])).toEqual([
      ['BTC', 'BTC'],
      ['1000PEPE', '"1000PEPE"'],
      ['on', '"on"'],
      ['BTC/USDT:USDT', 'BTC/USDT:USDT'],
    ]);
  });

  it('replaces the word being typed', () => {
    const { text, position } = withCursor('when rsi of BTC (timeframe 1h, per|');
    const { services, parsed } = openDocument(text);
    const [item] = services.completion.complete(parsed(), position);
    expect(item).toMatchObject({ label: 'period', detail: 'whole number 1 to 500', textEdit: { newText: 'period ', range: { start: { line: 0, character: 31 }, end: { line: 0, character: 34 } } } });
  });

  it('documents measures with their source and method', () => {
    const { text, position } = withCursor('when |');
    const { services, parsed } = openDocument(text);
    const rsi = services.completion.complete(parsed(), position).find((item) => item.label === 'rsi');
    expect(rsi).toMatchObject({ detail: 'ta.rsi', textEdit: { newText: 'rsi of ' }, documentation: { kind: 'markdown', value: 'Relative Strength Index, 0 to 100 (period 14).' } });
  });
});

const json = (marked: string) => completionLabels(marked, { json: true });
const condition = (inner: string) => `{"query": {"conditions": {"AND": [${inner}]}}}`;

describe('completion in JSON', () => {
  const defs = eqlSchema.$defs;

  it('offers the sources, then the methods of the chosen source, from the schema', () => {
    expect(json(condition('{"source": |}'))).toEqual(defs.condition.properties.source.enum);
    expect(json(condition('{"source": "price", "method": "|"}'))).toEqual(defs.priceCondition.properties.method.enum);
    expect(json(condition('{"source": "cron", "method": |}'))).toEqual(['once', 'every']);
    expect(json(condition('{"source": "price", "method": "current", "operator": ">", "value": {"source": |}}'))).toEqual(['price', 'ta']);
  });

  it('offers the properties an object may have, after its discriminators', () => {
    expect(json('{|}')).toEqual(['query', 'title', 'description']);
    expect(json('{"query": {|}}')).toEqual(['conditions', 'actions', 'expiresIn', 'repeat']);
    expect(json(condition('{|}'))).toEqual(['source', 'AND', 'holdFor', 'OR']);
    expect(json(condition('{"source": "tweet", |}'))).toEqual(['args', 'operator', 'value', 'holdFor', 'name']);
    expect(json(condition('{"source": "ta", "method": "bbands_upper", "args": {"symbol": "BTC", "|"}}'))).toEqual(['timeframe', 'period', 'stdDev', 'exchange']);
    expect(json('{"query": {"actions": [{"type": "market_order", "params": {"exchange": "paper", |}}]}}')).toEqual([
      'symbol',
      'side',
      'size',
      'amountUsd',
      'positionSizePercent',
      'leverage',
      'reduceOnly',
      'takeProfit',
      'stopLoss',
      'trailingStop',
    ]);
  });

  it('offers values: enums, action types of callbacks, booleans, durations', () => {
    expect(json(condition('{"source": "ta", "method": "rsi", "args": {"timeframe": |}}'))).toEqual(defs.timeframe.enum);
    expect(json('{"query": {"actions": [{"type": "llm", "params": {"callback": {"action": {"type": "|"}}}}]}}')).toEqual(['notify', 'webhook', 'messenger_bot', 'market_order', 'limit_order']);
    expect(json('{"query": {"actions": [{"type": "market_order", "params": {"reduceOnly": |}}]}}')).toEqual(['true', 'false']);
    expect(json('{"query": {"expiresIn": |}}')).toEqual(['5m', '15m', '1h', '4h', '24h', '7d']);
    expect(json(condition('{"source": "tweet", "operator": |}'))).toEqual(['>', '>=', '<', '<=', '==', '!=']);
  });

  it('completes a key being typed without doubling its colon, and replaces the string being typed', () => {
    const { text, position } = withCursor(condition('{"source": "llm", "args": {"qu|": "x"}}'));
    const { services, parsed } = openDocument(text, { json: true });
    const query = services.completion.complete(parsed(), position).find((item) => item.label === 'query');
    expect(query?.textEdit?.newText).toBe('"query"');
    const value = withCursor(condition('{"source": "p|"}'));
    const opened = openDocument(value.text, { json: true });
    const price = opened.services.completion.complete(opened.parsed(), value.position)[0];
    expect(price?.textEdit).toEqual({ newText: '"price"', range: { start: { line: 0, character: 45 }, end: { line: 0, character: 48 } } });
  });
});

describe('completion of placeholders', () => {
  const trigger = ['title', 'queryId', 'stepId', 'triggerIndex', 'firedAt'];
  const first = ['symbol', 'value', 'threshold', 'operator', 'source', 'method'];

  it('offers after {{ in a text of the text form the trigger, the first condition and each condition by its path, closing the braces', () => {
    const marked = 'when all of\n  price of BTC > 1\n  rsi of ETH (period 14) < 30\nthen\n  notify "at {{fi|" as tell\n';
    const labels = completionLabels(marked);
    expect(labels).toEqual([...trigger, ...first, 'price.BTC', 'price.ETH', ...first.map((field) => `AND.0.${field}`), ...first.map((field) => `AND.1.${field}`)]);
    const { text, position } = withCursor(marked);
    const { services, parsed } = openDocument(text);
    const fired = services.completion.complete(parsed(), position).find((item) => item.label === 'firedAt');
    expect(fired?.textEdit?.newText).toBe('firedAt}}');
    expect(fired?.documentation).toEqual({ kind: 'markdown', value: "the trigger's instant, ISO 8601 UTC" });
    // Before braces already closed, only the name.
    const { text: closedText, position: closedAt } = withCursor('when price of BTC > 1 then notify "{{|}}" as tell');
    const closed = openDocument(closedText);
    expect(closed.services.completion.complete(closed.parsed(), closedAt).find((item) => item.label === 'value')?.textEdit?.newText).toBe('value');
  });

  it('offers them in a webhook body of the JSON form, and nothing outside a string', () => {
    const json = '{"query": {"conditions": {"AND": [{"source": "price", "method": "current", "args": {"symbol": "BTC"}, "operator": "<", "value": 1}]}, "actions": [{"stepId": "d", "type": "webhook", "params": {"url": "https://x.io", "body": "{\\"content\\": \\"{{sy|"}}]}}';
    expect(completionLabels(json, { json: true })).toContain('AND.0.symbol');
    expect(completionLabels('when price of BTC > 1 then notify "x" as a {{|')).not.toContain('symbol');
  });
});
