import { describe, expect, it } from 'vitest';
import { jsonSourceMap, parseText, pointerAt, rangeOfPointer, type SourceMap, textSourceMap } from '../src/index.js';

function slice(text: string, map: SourceMap, pointer: string, key = false): string | undefined {
  const range = rangeOfPointer(map, pointer, { key });
  return range && text.slice(range.start.offset, range.end.offset);
}

const request = {
  title: 'BTC breakout',
  query: {
    conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC', exchange: 'binance' }, operator: '>', value: 100000 }] },
    actions: [{ stepId: 'alert', type: 'webhook', params: { url: 'https://hooks.example.com/eql', payload: { 'a/b': [1, { 'c~d': true }] } } }],
  },
};

describe('jsonSourceMap', () => {
  it.each([
    ['pretty', JSON.stringify(request, null, 2)],
    ['minified', JSON.stringify(request)],
  ])('maps every pointer of %s JSON to its value and key', (_label, text) => {
    const map = jsonSourceMap(text);
    expect(map.format).toBe('json');
    expect(slice(text, map, '')).toBe(text);
    expect(slice(text, map, '/title')).toBe('"BTC breakout"');
    expect(slice(text, map, '/title', true)).toBe('"title"');
    expect(slice(text, map, '/query/conditions/AND/0/args/symbol')).toBe('"BTC"');
    expect(slice(text, map, '/query/conditions/AND/0/value')).toBe('100000');
    expect(slice(text, map, '/query/actions/0/params/payload/a~1b/1/c~0d')).toBe('true');
    expect(JSON.parse(slice(text, map, '/query/conditions/AND/0') ?? '')).toEqual(request.query.conditions.AND[0]);
  });

  it('gives line and column, 1-based, of pretty JSON', () => {
    const text = JSON.stringify(request, null, 2);
    const range = rangeOfPointer(jsonSourceMap(text), '/query/conditions/AND/0/args/symbol');
    const line = text.split('\n').findIndex((row) => row.includes('"symbol": "BTC"')) + 1;
    expect(range?.start.line).toBe(line);
    expect(range?.start.column).toBe((text.split('\n')[line - 1] ?? '').indexOf('"BTC"') + 1);
    expect(range?.end.column).toBe((range?.start.column ?? 0) + 5);
  });

  it('falls back to the nearest existing ancestor', () => {
    const text = JSON.stringify(request);
    const map = jsonSourceMap(text);
    expect(slice(text, map, '/query/actions/0/params/message')).toBe(JSON.stringify(request.query.actions[0]?.params));
    expect(slice(text, map, '/nothing/here')).toBe(text);
  });

  it('maps a repeated key to the occurrence JSON.parse keeps, and survives broken JSON', () => {
    const text = '{"query": {"a": {"x": 1}, "a": {"y": 2}}}';
    const map = jsonSourceMap(text);
    expect(slice(text, map, '/query/a')).toBe('{"y": 2}');
    expect(map.entries.has('/query/a/x')).toBe(false);
    const broken = '{"query": {"conditions": {"AND": [1, ';
    expect(slice(broken, jsonSourceMap(broken), '/query/conditions/AND/0')).toBe('1');
    expect(jsonSourceMap('').entries.size).toBe(0);
  });
});

describe('textSourceMap', () => {
  const text = `title "BTC breakout"
when all of
  price of BTC (exchange binance) > 100000 for 5m
  tweet by @elonmusk about "dogecoin" with confidence >= 90
then
  market buy $500 of BTC-PERP on paper (takeProfit 10%) as entry
expires in 24h
`;
  const map = textSourceMap(text);

  it.each([
    ['/title', '"BTC breakout"'],
    ['/query/conditions/AND/0/source', 'price'],
    ['/query/conditions/AND/0/args/symbol', 'BTC'],
    ['/query/conditions/AND/0/args/exchange', 'binance'],
    ['/query/conditions/AND/0/operator', '>'],
    ['/query/conditions/AND/0/value', '100000'],
    ['/query/conditions/AND/0/holdFor', '5m'],
    ['/query/conditions/AND/0', 'price of BTC (exchange binance) > 100000 for 5m'],
    ['/query/conditions/AND/1/args/username', '@elonmusk'],
    ['/query/conditions/AND/1/operator', '>='],
    ['/query/actions/0/type', 'market'],
    ['/query/actions/0/stepId', 'entry'],
    ['/query/actions/0/params/amountUsd', '$500'],
    ['/query/actions/0/params/takeProfit/percent', '10%'],
    ['/query/actions/0', 'market buy $500 of BTC-PERP on paper (takeProfit 10%) as entry'],
    ['/query/expiresIn', '24h'],
  ])('%s is %s', (pointer, expected) => {
    expect(slice(text, map, pointer)).toBe(expected);
  });

  it('has key ranges for named parts', () => {
    expect(slice(text, map, '/query/conditions/AND/0/args/exchange', true)).toBe('exchange');
    expect(slice(text, map, '/query/conditions/AND/0/holdFor', true)).toBe('for');
    expect(slice(text, map, '/query/actions/0/params/exchange', true)).toBe('on');
    expect(slice(text, map, '/query/actions/0/stepId', true)).toBe('as');
    expect(slice(text, map, '/query/expiresIn', true)).toBe('expires in');
  });

  it('falls back to the parent for a missing property', () => {
    expect(slice(text, map, '/query/conditions/AND/1/args/minConfidence')).toBe('@elonmusk about "dogecoin"');
    expect(slice(text, map, '/query/repeat')).toBe(slice(text, map, '/query'));
  });

  it('finds the innermost pointer at an offset', () => {
    expect(pointerAt(map, text.indexOf('binance') + 2)).toBe('/query/conditions/AND/0/args/exchange');
    expect(pointerAt(map, text.indexOf('$500'))).toBe('/query/actions/0/params/amountUsd');
  });

  it('counts lines and columns from 1, with CRLF line ends too', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    const range = rangeOfPointer(parseText(crlf).map, '/query/conditions/AND/1/args/username');
    expect(range?.start).toMatchObject({ line: 4, column: 12 });
    expect(range?.end).toMatchObject({ line: 4, column: 21 });
  });
});
