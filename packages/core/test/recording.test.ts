import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { RSI } from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { type Observation, type PriceObservation } from '../src/engine/observations.js';
import { parseIsoTime, parseRecording, RecordingError, serializeRecording } from '../src/engine/recording.js';

const at = (iso: string) => Date.parse(iso);

/** Runs `fn` and returns the RecordingError it throws (failing when it throws nothing or something else). */
function recordingError(fn: () => unknown): RecordingError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RecordingError);
    return error as RecordingError;
  }
  throw new Error('expected a RecordingError');
}

/** Parses, or checks that the failure is a well-formed RecordingError within the text's lines. */
function parseOrRecordingError(text: string): void {
  try {
    const recording = parseRecording(text);
    expect(recording.observations.length).toBeGreaterThan(0);
    for (let i = 1; i < recording.observations.length; i += 1) {
      expect(recording.observations[i]!.at).toBeGreaterThanOrEqual(recording.observations[i - 1]!.at);
    }
  } catch (error) {
    if (!(error instanceof RecordingError)) throw error;
    expect(Number.isInteger(error.line)).toBe(true);
    expect(error.line).toBeGreaterThanOrEqual(1);
    expect(error.line).toBeLessThanOrEqual(text.split('\n').length);
    expect(error.message).toBe(`line ${error.line}: ${error.reason}`);
    expect(error.reason.length).toBeGreaterThan(0);
  }
}

describe('parseRecording', () => {
  it('reads the examples of the architecture', () => {
    const text = [
      '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC","price":100500.5}',
      '{"at":"2026-01-01T00:00:01Z","source":"tweet","username":"alice","text":"gm","tweetId":"1"}',
      '{"at":"2026-01-01T00:00:02Z","source":"news","text":"SEC approves spot Solana ETF","url":"https://example.com/a"}',
      '{"at":"2026-01-01T00:00:03Z","source":"llm","query":"Is crypto market sentiment bullish?","confidence":90}',
    ].join('\n');
    expect(parseRecording(text)).toEqual({
      observations: [
        { at: at('2026-01-01T00:00:00Z'), source: 'price', symbol: 'BTC', price: 100500.5 },
        { at: at('2026-01-01T00:00:01Z'), source: 'tweet', username: 'alice', text: 'gm', tweetId: '1' },
        { at: at('2026-01-01T00:00:02Z'), source: 'news', text: 'SEC approves spot Solana ETF', url: 'https://example.com/a' },
        { at: at('2026-01-01T00:00:03Z'), source: 'llm', query: 'Is crypto market sentiment bullish?', confidence: 90 },
      ],
      start: at('2026-01-01T00:00:00Z'),
      end: at('2026-01-01T00:00:03Z'),
    });
  });

  it('reads every optional field, ignores unknown ones and takes null as absent', () => {
    const text = [
      '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC/USDT","price":1,"volume":0,"exchange":"binance","bid":0.9}',
      '{"at":"2026-01-01T00:00:00Z","source":"tweet","username":"bob","text":"","tweetId":"2","url":"https://x.com/bob/status/2","likes":3}',
      '{"at":"2026-01-01T00:00:00Z","source":"news","text":"Headline","id":"n1","url":null}',
      '{"at":"2026-01-01T00:00:00Z","source":"llm","query":"q","confidence":0,"reasoning":"because","model":"m"}',
      '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"ETH","price":2,"volume":null,"exchange":null}',
    ].join('\n');
    expect(parseRecording(text).observations).toEqual([
      { at: at('2026-01-01T00:00:00Z'), source: 'price', symbol: 'BTC/USDT', price: 1, volume: 0, exchange: 'binance' },
      { at: at('2026-01-01T00:00:00Z'), source: 'tweet', username: 'bob', text: '', tweetId: '2', url: 'https://x.com/bob/status/2' },
      { at: at('2026-01-01T00:00:00Z'), source: 'news', text: 'Headline', id: 'n1' },
      { at: at('2026-01-01T00:00:00Z'), source: 'llm', query: 'q', confidence: 0, reasoning: 'because' },
      { at: at('2026-01-01T00:00:00Z'), source: 'price', symbol: 'ETH', price: 2 },
    ]);
  });

  it('skips blank and // lines, accepts CRLF and a byte order mark, and counts every line', () => {
    const text =
      '\uFEFF// a recording\r\n\r\n   \n{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC","price":1}\r\n' +
      '  // a note\n{"at":"2026-01-01T00:01:00Z","source":"price","symbol":"BTC","price":0}\n';
    const error = recordingError(() => parseRecording(text));
    expect(error.line).toBe(6);
    expect(error.message).toBe('line 6: price must be a positive number, not 0');
    const fixed = text.replace('"price":0', '"price":2');
    const recording = parseRecording(fixed);
    expect(recording.observations.map((o) => o.at)).toEqual([at('2026-01-01T00:00:00Z'), at('2026-01-01T00:01:00Z')]);
    expect(recording.start).toBe(at('2026-01-01T00:00:00Z'));
    expect(recording.end).toBe(at('2026-01-01T00:01:00Z'));
  });

  it('reads ISO 8601 times with any zone', () => {
    const utc = at('2026-01-05T00:00:00Z');
    expect(parseIsoTime('2026-01-05T00:00:00Z')).toBe(utc);
    expect(parseIsoTime('2026-01-05T00:00:00.000Z')).toBe(utc);
    expect(parseIsoTime('2026-01-05T00:00Z')).toBe(utc);
    expect(parseIsoTime('2026-01-05t00:00:00z')).toBe(utc);
    expect(parseIsoTime('2026-01-05T01:00:00+01:00')).toBe(utc);
    expect(parseIsoTime('2026-01-04T18:30:00-0530')).toBe(utc);
    expect(parseIsoTime('2026-01-05T02:00:00+02')).toBe(utc);
    expect(parseIsoTime('2026-01-05T00:00:00.1239Z')).toBe(utc + 123);
    expect(parseIsoTime('2026-01-05T00:00:00,5Z')).toBe(utc + 500);
    expect(parseIsoTime('2024-02-29T00:00:00Z')).toBe(at('2024-02-29T00:00:00Z'));
    expect(parseIsoTime('0001-01-01T00:00:00Z')).toBe(new Date('0001-01-01T00:00:00Z').getTime());
    expect(parseIsoTime('+275760-09-13T00:00:00Z')).toBe(8.64e15);
    expect(parseIsoTime('-271821-04-20T00:00:00Z')).toBe(-8.64e15);
    for (const bad of [
      '2026-01-05T00:00:00', // no zone
      '2026-01-05',
      '2026-01-05 00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-05T24:00:00Z',
      '2026-01-05T00:60:00Z',
      '2026-01-05T00:00:60Z',
      '2026-01-05T00:00:00+24:00',
      '+275760-09-13T00:00:00.001Z',
      '-000000-01-01T00:00:00Z',
      '1736035200000',
      'yesterday',
      '',
    ]) {
      expect(parseIsoTime(bad), bad).toBeUndefined();
    }
  });

  it('allows equal times and rejects lines out of time order', () => {
    const line = (time: string, price: number) => `{"at":"${time}","source":"price","symbol":"BTC","price":${price}}`;
    const same = parseRecording([line('2026-01-05T00:00:00Z', 1), line('2026-01-05T01:00:00+01:00', 2)].join('\n'));
    expect(same.observations.map((o) => (o as PriceObservation).price)).toEqual([1, 2]);
    const error = recordingError(() =>
      parseRecording([line('2026-01-05T00:01:00Z', 1), '', line('2026-01-05T00:00:59Z', 2)].join('\n')),
    );
    expect(error.line).toBe(3);
    expect(error.message).toBe(
      'line 3: observations must be ordered by at: 2026-01-05T00:00:59Z is before 2026-01-05T00:01:00Z (line 1)',
    );
  });

  it('rejects a recording without observations', () => {
    for (const text of ['', '\n\n', '// only a comment\n']) {
      const error = recordingError(() => parseRecording(text));
      expect(error.reason).toBe('the recording holds no observations');
    }
  });

  const base = '"at":"2026-01-05T00:00:00Z"';
  const cases: [string, string][] = [
    ['{', 'not valid JSON'],
    ['[1,2]', 'an observation must be a JSON object, not an array'],
    ['"price"', 'an observation must be a JSON object, not a string'],
    ['null', 'an observation must be a JSON object, not null'],
    ['{"source":"price","symbol":"BTC","price":1}', 'at is missing'],
    ['{"at":1736035200000,"source":"price","symbol":"BTC","price":1}', 'at must be an ISO 8601 time string with a zone, not 1736035200000'],
    ['{"at":"2026-01-05T00:00:00","source":"price","symbol":"BTC","price":1}', 'at must be an ISO 8601 time with a zone'],
    [`{${base}}`, 'source is missing (one of price, tweet, news, llm)'],
    [`{${base},"source":"trade"}`, 'source must be one of price, tweet, news, llm, not "trade"'],
    [`{${base},"source":"price","price":1}`, 'symbol is missing'],
    [`{${base},"source":"price","symbol":" ","price":1}`, 'symbol must not be empty'],
    [`{${base},"source":"price","symbol":7,"price":1}`, 'symbol must be a string, not 7'],
    [`{${base},"source":"price","symbol":"BTC"}`, 'price is missing (a positive number)'],
    [`{${base},"source":"price","symbol":"BTC","price":-1}`, 'price must be a positive number, not -1'],
    [`{${base},"source":"price","symbol":"BTC","price":"1"}`, 'price must be a positive number, not "1"'],
    [`{${base},"source":"price","symbol":"BTC","price":1e400}`, 'price must be a positive number, not Infinity'],
    [`{${base},"source":"price","symbol":"BTC","price":1,"volume":-0.5}`, 'volume must be a number >= 0, not -0.5'],
    [`{${base},"source":"price","symbol":"BTC","price":1,"exchange":""}`, 'exchange must not be empty'],
    [`{${base},"source":"tweet","username":"@elonmusk","text":"x","tweetId":"1"}`, 'username must be given without @ ("@elonmusk")'],
    [`{${base},"source":"tweet","username":"elonmusk","text":"x","tweetId":1}`, 'tweetId must be a string, not 1'],
    [`{${base},"source":"tweet","username":"elonmusk","tweetId":"1"}`, 'text is missing'],
    [`{${base},"source":"tweet","username":"elonmusk","text":{},"tweetId":"1"}`, 'text must be a string, not an object'],
    [`{${base},"source":"news","text":""}`, 'text must not be empty'],
    [`{${base},"source":"news","text":"x","url":5}`, 'url must be a string, not 5'],
    [`{${base},"source":"llm","query":"q","confidence":101}`, 'confidence must be a number from 0 to 100, not 101'],
    [`{${base},"source":"llm","query":"q"}`, 'confidence is missing (a number from 0 to 100)'],
    [`{${base},"source":"llm","confidence":50}`, 'query is missing'],
    [`{${base},"source":"llm","query":"q","confidence":50,"reasoning":[]}`, 'reasoning must be a string, not an array'],
  ];
  it.each(cases)('rejects %s', (line, reason) => {
    const error = recordingError(() => parseRecording(`// header\n${line}\n`));
    expect(error.line).toBe(2);
    expect(error.reason.startsWith(reason)).toBe(true);
    expect(error.message.startsWith(`line 2: ${reason}`)).toBe(true);
  });

  it('reads only own fields', () => {
    const recording = parseRecording(`{${base},"source":"price","symbol":"BTC","price":1,"__proto__":{"volume":-1}}`);
    expect(recording.observations).toEqual([{ at: at('2026-01-05T00:00:00Z'), source: 'price', symbol: 'BTC', price: 1 }]);
    expect(() => parseRecording('{"at":"2026-01-05T00:00:00Z","source":"constructor"}')).toThrow(RecordingError);
  });
});

// ---------------------------------------------------------------- arbitraries

const noNegativeZero = (n: number) => (n === 0 ? 0 : n);
const anyText = fc.string({ unit: 'binary', maxLength: 40 });
const nonBlank = anyText.filter((s) => s.trim() !== '');
const time = fc.oneof(
  fc.integer({ min: at('2020-01-01T00:00:00Z'), max: at('2030-01-01T00:00:00Z') }),
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
);

const observation: fc.Arbitrary<Observation> = fc.oneof(
  fc.record(
    {
      at: time,
      source: fc.constant('price' as const),
      symbol: nonBlank,
      price: fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }),
      volume: fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }).map(noNegativeZero),
      exchange: nonBlank,
    },
    { requiredKeys: ['at', 'source', 'symbol', 'price'] },
  ),
  fc.record(
    {
      at: time,
      source: fc.constant('tweet' as const),
      username: nonBlank.filter((s) => !s.includes('@')),
      text: anyText,
      tweetId: nonBlank,
      url: nonBlank,
    },
    { requiredKeys: ['at', 'source', 'username', 'text', 'tweetId'] },
  ),
  fc.record(
    { at: time, source: fc.constant('news' as const), text: nonBlank, url: nonBlank, id: nonBlank },
    { requiredKeys: ['at', 'source', 'text'] },
  ),
  fc.record(
    {
      at: time,
      source: fc.constant('llm' as const),
      query: nonBlank,
      confidence: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.double({ min: 0, max: 100, noNaN: true }).map(noNegativeZero)),
      reasoning: anyText,
    },
    { requiredKeys: ['at', 'source', 'query', 'confidence'] },
  ),
);

const observations = fc.array(observation, { minLength: 1, maxLength: 12 }).map((list) => [...list].sort((a, b) => a.at - b.at));

/** A change to one valid line: a field removed, replaced or added, or the text cut or spliced. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('remove' as const), key: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), key: fc.nat(), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.constantFrom('at', 'source', 'symbol', 'price', 'volume', 'exchange', 'username', 'text', 'tweetId', 'url', 'id', 'query', 'confidence', 'reasoning', 'extra'),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), text: fc.string({ maxLength: 4 }) }),
);

function mutate(list: Observation[], index: number, change: typeof mutation extends fc.Arbitrary<infer T> ? T : never): string {
  const lines = serializeRecording(list).split('\n');
  const target = index % list.length;
  const line = lines[target] ?? '';
  const record = JSON.parse(line) as Record<string, unknown>;
  const keys = Object.keys(record);
  switch (change.kind) {
    case 'remove':
      delete record[keys[change.key % keys.length] ?? 'at'];
      lines[target] = JSON.stringify(record);
      break;
    case 'replace':
      record[keys[change.key % keys.length] ?? 'at'] = change.value;
      lines[target] = JSON.stringify(record);
      break;
    case 'add':
      record[change.key] = change.value;
      lines[target] = JSON.stringify(record);
      break;
    case 'cut':
      lines[target] = line.slice(0, change.at % (line.length + 1));
      break;
    case 'splice': {
      const position = change.at % (line.length + 1);
      lines[target] = line.slice(0, position) + change.text + line.slice(position);
      break;
    }
  }
  return lines.join('\n');
}

describe('parseRecording never throws anything but RecordingError', () => {
  it('on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), parseOrRecordingError), { numRuns: 1000 });
  });

  it('on arbitrary lines of JSON', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), fc.string())), (lines) =>
        parseOrRecordingError(lines.join('\n')),
      ),
      { numRuns: 500 },
    );
  });

  it('on lines that look like observations', () => {
    const near = fc.record(
      {
        at: fc.oneof(fc.constant('2026-01-05T00:00:00Z'), fc.string(), fc.integer()),
        source: fc.constantFrom('price', 'tweet', 'news', 'llm', 'other'),
        symbol: fc.jsonValue({ maxDepth: 1 }),
        price: fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 })),
        volume: fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 })),
        username: fc.jsonValue({ maxDepth: 1 }),
        text: fc.jsonValue({ maxDepth: 1 }),
        tweetId: fc.jsonValue({ maxDepth: 1 }),
        query: fc.jsonValue({ maxDepth: 1 }),
        confidence: fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(near, { maxLength: 5 }), (records) => parseOrRecordingError(records.map((r) => JSON.stringify(r)).join('\n'))),
      { numRuns: 500 },
    );
  });

  it('on valid recordings with one line mutated', () => {
    fc.assert(
      fc.property(observations, fc.nat(), mutation, (list, index, change) => parseOrRecordingError(mutate(list, index, change))),
      { numRuns: 1000 },
    );
  });
});

describe('serializeRecording', () => {
  it('round-trips through parseRecording', () => {
    fc.assert(
      fc.property(observations, (list) => {
        const text = serializeRecording(list);
        const recording = parseRecording(text);
        expect(recording.observations).toEqual(list);
        expect(recording.start).toBe(list[0]!.at);
        expect(recording.end).toBe(list[list.length - 1]!.at);
        expect(serializeRecording(recording.observations)).toBe(text);
        expect(text.split('\n')).toHaveLength(list.length + 1);
      }),
      { numRuns: 500 },
    );
  });

  it('writes the canonical form: key order, UTC times with milliseconds only when needed, a final newline', () => {
    const list: Observation[] = [
      { price: 100500.5, symbol: 'BTC', source: 'price', at: at('2026-01-01T00:00:00Z'), exchange: 'binance', volume: 1.5 },
      { tweetId: '1', text: 'gm', username: 'alice', source: 'tweet', at: at('2026-01-01T00:00:00.250Z') },
      { id: 'n1', url: 'https://example.com', text: 'Headline', source: 'news', at: at('2026-01-01T00:00:01Z') },
      { reasoning: 'r', confidence: 90, query: 'q', source: 'llm', at: at('2026-01-01T00:00:02Z') },
    ];
    expect(serializeRecording(list)).toBe(
      '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC","price":100500.5,"volume":1.5,"exchange":"binance"}\n' +
        '{"at":"2026-01-01T00:00:00.250Z","source":"tweet","username":"alice","text":"gm","tweetId":"1"}\n' +
        '{"at":"2026-01-01T00:00:01Z","source":"news","text":"Headline","url":"https://example.com","id":"n1"}\n' +
        '{"at":"2026-01-01T00:00:02Z","source":"llm","query":"q","confidence":90,"reasoning":"r"}\n',
    );
    expect(serializeRecording([])).toBe('');
  });

  it('leaves out fields outside the observation types', () => {
    const extra = { at: 0, source: 'news', text: 'x', extra: 1 } as Observation;
    expect(serializeRecording([extra])).toBe('{"at":"1970-01-01T00:00:00Z","source":"news","text":"x"}\n');
  });

  it('rejects what would not parse back, with the 1-based position', () => {
    const ok: Observation = { at: 0, source: 'price', symbol: 'BTC', price: 1 };
    const cases: [Observation, string][] = [
      [{ ...ok, at: 1.5 }, 'at must be an integer epoch ms time, not 1.5'],
      [{ ...ok, at: 9e15 }, 'at must be an integer epoch ms time'],
      [{ ...ok, at: -1 }, 'observations must be ordered by at'],
      [{ ...ok, price: Number.NaN }, 'price must be a positive number, not NaN'],
      [{ ...ok, volume: -1 }, 'volume must be a number >= 0, not -1'],
      [{ at: 0, source: 'tweet', username: '@a', text: '', tweetId: '1' }, 'username must be given without @'],
      [{ at: 0, source: 'llm', query: 'q', confidence: 100.5 }, 'confidence must be a number from 0 to 100'],
    ];
    for (const [bad, reason] of cases) {
      const error = recordingError(() => serializeRecording([ok, bad]));
      expect(error.line).toBe(2);
      expect(error.reason.startsWith(reason), error.reason).toBe(true);
    }
  });
});

// ---------------------------------------------------------------- fixtures

const fixtures = new URL('../../../fixtures/recordings/', import.meta.url);
const files = readdirSync(fixtures).filter((name) => name.endsWith('.jsonl')).sort();
const read = (name: string) => readFileSync(new URL(name, fixtures), 'utf8');
const contentLines = (text: string) => text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));

describe('fixtures/recordings', () => {
  it('has the generated files', () => {
    expect(files).toEqual(['btc-1d.jsonl', 'market-3d.jsonl']);
  });

  it.each(files)('%s parses, is ordered, canonical and has unique ids', (name) => {
    const text = read(name);
    const recording = parseRecording(text);
    const list = recording.observations;
    expect(list.length).toBe(contentLines(text).length);
    for (let i = 1; i < list.length; i += 1) expect(list[i]!.at).toBeGreaterThanOrEqual(list[i - 1]!.at);
    expect(recording.start).toBe(list[0]!.at);
    expect(recording.end).toBe(list[list.length - 1]!.at);
    expect(serializeRecording(list)).toBe(`${contentLines(text).join('\n')}\n`);
    const ids = list.flatMap((o) => (o.source === 'tweet' ? [o.tweetId] : o.source === 'news' ? [o.id] : []));
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of list) {
      if (o.source !== 'price') continue;
      expect(o.volume).toBeGreaterThan(0);
      expect(Math.round(o.price * 100) / 100).toBe(o.price);
      expect(Math.round(o.volume! * 1e4) / 1e4).toBe(o.volume);
    }
  });

  const market = parseRecording(read('market-3d.jsonl'));
  const prices = (symbol: string) => market.observations.filter((o): o is PriceObservation => o.source === 'price' && o.symbol === symbol);
  const MINUTE = 60_000;

  it('market-3d.jsonl: a price per symbol every minute for 3 days, 41 posts, 21 news, hourly verdicts', () => {
    const counts: Record<string, number> = {};
    for (const o of market.observations) counts[o.source] = (counts[o.source] ?? 0) + 1;
    expect(counts).toEqual({ price: 12960, tweet: 41, news: 21, llm: 144 });
    expect(market.start).toBe(at('2026-01-05T00:00:00Z'));
    for (const symbol of ['BTC', 'ETH', 'SOL']) {
      const series = prices(symbol);
      expect(series).toHaveLength(4320);
      series.forEach((o, i) => expect(o.at).toBe(market.start + i * MINUTE));
    }
    expect(prices('BTC')[0]!.price).toBe(100000);
    expect(prices('ETH')[0]!.price).toBe(3500);
    expect(prices('SOL')[0]!.price).toBe(200);
    for (const query of ['Is crypto market sentiment bullish?', 'Is a major exchange facing a liquidity crisis?']) {
      const verdicts = market.observations.filter((o) => o.source === 'llm' && o.query === query);
      expect(verdicts.map((o) => o.at)).toEqual(Array.from({ length: 72 }, (_, h) => market.start + h * 60 * MINUTE));
    }
  });

  it('btc-1d.jsonl: the BTC prices of 2026-01-06 of market-3d.jsonl', () => {
    const day = parseRecording(read('btc-1d.jsonl'));
    const from = at('2026-01-06T00:00:00Z');
    expect(day.observations).toEqual(prices('BTC').filter((o) => o.at >= from && o.at < from + 1440 * MINUTE));
    expect(day.observations).toHaveLength(1440);
  });

  it('has the notable moments of fixtures/recordings/README.md', () => {
    const find = (test: (o: Observation) => boolean) => market.observations.find(test);
    const btc = prices('BTC');
    const cross = btc.findIndex((o) => o.price > 105_000);
    expect(btc[cross]!.at).toBe(at('2026-01-06T16:02:00Z'));
    expect(btc.slice(0, cross).every((o) => o.price < 105_000)).toBe(true);

    // ETH: first minute at least 8% under its 24-hour high.
    const eth = prices('ETH');
    const drop = eth.find((o, i) => eth.slice(Math.max(0, i - 1440), i + 1).some((p) => o.price <= p.price * 0.92));
    expect(drop?.at).toBe(at('2026-01-07T03:23:00Z'));

    // SOL: RSI(14) of hourly closes (the HH:59 price), by trading-signals.
    const rsi = new RSI(14);
    const rsiByClose = new Map<number, number>();
    for (const o of prices('SOL').filter((p) => new Date(p.at).getUTCMinutes() === 59)) {
      const value = rsi.update(o.price, false);
      if (value !== null) rsiByClose.set(o.at, Number(value));
    }
    const above = [...rsiByClose].filter(([, value]) => value > 70).map(([time]) => time);
    const below = [...rsiByClose].filter(([, value]) => value < 30).map(([time]) => time);
    expect(above[0]).toBe(at('2026-01-05T23:59:00Z'));
    expect(above).toContain(at('2026-01-06T09:59:00Z'));
    expect(below[0]).toBe(at('2026-01-07T03:59:00Z'));
    expect(below).toContain(at('2026-01-07T23:59:00Z'));

    const bullish = market.observations.filter((o) => o.source === 'llm' && o.query === 'Is crypto market sentiment bullish?');
    const over80 = bullish.find((o) => o.source === 'llm' && o.confidence >= 80);
    expect(over80?.at).toBe(at('2026-01-06T16:00:00Z'));

    expect(find((o) => o.source === 'tweet' && o.username === 'elonmusk' && /dogecoin/i.test(o.text))?.at).toBe(at('2026-01-06T02:14:37Z'));
    expect(find((o) => o.source === 'tweet' && o.username === 'saylor' && o.text.includes('acquired'))?.at).toBe(at('2026-01-05T12:31:04Z'));
    expect(find((o) => o.source === 'news' && o.text.startsWith('SEC approves spot Solana ETF'))?.at).toBe(at('2026-01-05T20:30:00Z'));
    expect(find((o) => o.source === 'news' && o.text.includes('exploited, $40M drained'))?.at).toBe(at('2026-01-07T02:47:00Z'));
  });
});
