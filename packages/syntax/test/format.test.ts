import { describe, expect, it } from 'vitest';
import { formatText, isFormatted } from '../src/index.js';

describe('formatText', () => {
  it('lays out a one-line query canonically', () => {
    expect(formatText('when all of [price of BTC>1 , rsi of BTC(period 7)crosses above 70] then notify "x" as a, market buy $5 of BTC on paper as b expires in 1h').text).toBe(
      'when all of\n  price of BTC > 1\n  rsi of BTC (period 7) crosses above 70\nthen\n  notify "x" as a\n  market buy $5 of BTC on paper as b\nexpires in 1h\n',
    );
  });

  it('keeps comments with the line they end or the line below them', () => {
    const text = [
      '# Watch BTC',
      'when all of   # every member must hold',
      '    # the price',
      '    price of BTC > 100000 # a round number',
      '    any of [ # either',
      '      news about "ETF"',
      '    ]',
      'then notify "x"   as a',
      '# the end',
    ].join('\n');
    expect(formatText(text).text).toBe(
      [
        '# Watch BTC',
        'when all of  # every member must hold',
        '  # the price',
        '  price of BTC > 100000  # a round number',
        '  any of [  # either',
        '    news about "ETF"',
        '  ]',
        'then',
        '  notify "x" as a',
        '# the end',
        '',
      ].join('\n'),
    );
  });

  it('is idempotent and says whether a text is formatted', () => {
    const once = formatText('title "T" when price of BTC > 1 # c\nthen notify "x" as a # d').text ?? '';
    expect(formatText(once).text).toBe(once);
    expect(isFormatted(once)).toBe(true);
    expect(isFormatted('when price of BTC > 1 then notify "x" as a')).toBe(false);
  });

  it('does not format text with syntax errors', () => {
    const result = formatText('when price of > 1 then notify "x" as a');
    expect(result.text).toBeUndefined();
    expect(result.errors[0]?.range.start).toMatchObject({ line: 1, column: 15 });
  });
});
