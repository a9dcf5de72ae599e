import { describe, expect, it } from 'vitest';
import { randomUuid } from '../src/index.js';

const VERSION_4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 122 random bits of an id (the version nibble and the two variant bits left out), as 0 / 1. */
function randomBits(id: string): number[] {
  const hex = id.replaceAll('-', '');
  const bits: number[] = [];
  for (let digit = 0; digit < 32; digit += 1) {
    const value = Number.parseInt(hex[digit] as string, 16);
    for (let bit = 3; bit >= 0; bit -= 1) {
      const position = digit * 4 + (3 - bit);
      // Digit 12 is the version (4); the first two bits of digit 16 are the variant (10).
      if (digit === 12 || position === 64 || position === 65) continue;
      bits.push((value >> bit) & 1);
    }
  }
  return bits;
}

describe('randomUuid', () => {
  it('makes version 4 UUIDs in lower case, as crypto.randomUUID does, across many refills of its pool', () => {
    for (let index = 0; index < 5_000; index += 1) expect(randomUuid()).toMatch(VERSION_4);
    expect(crypto.randomUUID()).toMatch(VERSION_4);
  });

  it('never repeats an id in 200,000', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 200_000; index += 1) seen.add(randomUuid());
    expect(seen.size).toBe(200_000);
  });

  it('sets each of the 122 random bits about half the time', () => {
    // 4,000 ids: a fair bit is set 2,000 ± 32 times (one standard deviation); the bound is 8 of them,
    // which a fair generator misses with a chance below 1e-14 a bit. A bit stuck or copied from another fails.
    const ids = 4_000;
    const counts = new Array<number>(122).fill(0);
    const agreeWithNext = new Array<number>(121).fill(0);
    for (let index = 0; index < ids; index += 1) {
      const bits = randomBits(randomUuid());
      expect(bits).toHaveLength(122);
      for (let bit = 0; bit < 122; bit += 1) {
        counts[bit] = (counts[bit] as number) + (bits[bit] as number);
        if (bit < 121 && bits[bit] === bits[bit + 1]) agreeWithNext[bit] = (agreeWithNext[bit] as number) + 1;
      }
    }
    for (const count of [...counts, ...agreeWithNext]) expect(Math.abs(count - ids / 2)).toBeLessThan(8 * Math.sqrt(ids) / 2);
  });
});
