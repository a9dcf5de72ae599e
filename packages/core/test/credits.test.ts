import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceOfCredits, usdcAtomicUnitsOfCredits } from '@eql/core';

describe('prices of credits (1 credit = 0.009 USD)', () => {
  it.each([
    [0, '$0.00'],
    [1, '$0.009'],
    [5, '$0.045'],
    [10, '$0.09'],
    [18, '$0.162'],
    [23, '$0.207'],
    [125, '$1.125'],
    [1000, '$9.00'],
    [1111, '$9.999'],
    [123456789, '$1111111.101'],
  ])('%d credits cost %s', (credits, price) => {
    expect(priceOfCredits(credits)).toBe(price);
  });

  it('is exact: the decimal string is credits × 9 thousandths, with no float noise', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (credits) => {
        const price = priceOfCredits(credits);
        expect(price).toMatch(/^\$[0-9]+\.[0-9]{2,3}$/);
        const [whole, fraction] = price.slice(1).split('.') as [string, string];
        const thousandths = BigInt(whole) * 1000n + BigInt(fraction.padEnd(3, '0'));
        expect(thousandths).toBe(BigInt(credits) * 9n);
      }),
    );
  });

  it('refuses fractional or negative credits', () => {
    expect(() => priceOfCredits(1.5)).toThrow(RangeError);
    expect(() => priceOfCredits(-1)).toThrow(RangeError);
  });

  it('gives USDC atomic units (6 decimals) as credits × 9000', () => {
    expect(usdcAtomicUnitsOfCredits(5)).toBe(45_000n);
    expect(usdcAtomicUnitsOfCredits(18)).toBe(162_000n);
  });
});
