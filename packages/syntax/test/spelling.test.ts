import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEYWORDS, loadDocument, MEASURES } from '../src/index.js';
import { editDistance, editDistanceCells, MAX_SUGGESTED_WORD_LENGTH, nearestWord } from '../src/recover/spelling.js';

/**
 * "Did you mean" costs bounded work whatever the text: a document that is one huge word (a request body
 * sent to the host, a buffer pasted into the editor) fills no alignment cell at all, and the candidates
 * skipped by length never change a suggestion.
 */

/** Alignment cells `run` fills. */
function cellsOf(run: () => void): number {
  const before = editDistanceCells();
  run();
  return editDistanceCells() - before;
}

/** The suggestion as it was before the bounds: every candidate measured, whatever its length. */
function unboundedNearest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  let bestPrefix = -1;
  const prefix = (candidate: string) => {
    let length = 0;
    while (length < lower.length && length < candidate.length && lower[length] === candidate[length]) length += 1;
    return length;
  };
  for (const candidate of candidates) {
    if (candidate === lower) return candidate;
    if (lower.length < 2 && candidate.length > 2) continue;
    const distance = editDistance(lower, candidate);
    if (distance < bestDistance || (distance === bestDistance && prefix(candidate) > bestPrefix)) {
      best = candidate;
      bestDistance = distance;
      bestPrefix = prefix(candidate);
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(Math.max(lower.length, 2) / 3)) ? best : undefined;
}

const VOCABULARY = [...KEYWORDS, ...MEASURES.keys()];

describe('spelling suggestions', () => {
  it('fill no alignment cell for a document that is one 250 KB word, and none for such a word among others', () => {
    const huge = 'a'.repeat(250_000);
    const loaded = (text: string) => loadDocument(text, 'text').errors.length;
    let errors = 0;
    expect(cellsOf(() => (errors = loaded(huge)))).toBe(0);
    // Still reported, without a guess.
    expect(errors).toBeGreaterThan(0);
    // Where the huge word stands among other words, it adds nothing to what a word just over the bound costs.
    const justOver = 'a'.repeat(MAX_SUGGESTED_WORD_LENGTH + 1);
    for (const template of [(word: string) => `when ${word}`, (word: string) => `when price ${word} BTC > 1\nthen notify "x" as n\n`, (word: string) => `${word}\nthen notify "x" as n\n`]) {
      expect(cellsOf(() => (errors = loaded(template(huge))))).toBe(cellsOf(() => loaded(template(justOver))));
      expect(errors).toBeGreaterThan(0);
    }
  });

  it('suggest nothing for a word over the length bound, and still suggest for one at it', () => {
    const long = `notify${'y'.repeat(MAX_SUGGESTED_WORD_LENGTH - 'notify'.length)}`;
    expect(long).toHaveLength(MAX_SUGGESTED_WORD_LENGTH);
    expect(nearestWord(`${long}y`, [long])).toBeUndefined();
    expect(nearestWord(`${long.slice(0, -1)}z`, [long])).toBe(long);
  });

  it('measure only candidates within the tolerance by length: a short word against long keywords costs nothing', () => {
    expect(cellsOf(() => expect(nearestWord('wen', ['description', 'expires', 'repeat'])).toBeUndefined())).toBe(0);
    expect(cellsOf(() => expect(nearestWord('wen', ['when'])).toBe('when'))).toBe(4 * 5);
  });

  it('suggest what measuring every candidate suggests (property)', () => {
    const letters = fc.constantFrom(...'abcdeilnoprstuwy');
    const word = fc.oneof(
      fc.constantFrom(...VOCABULARY).chain((base) => fc.tuple(fc.nat(base.length), letters, fc.constantFrom('swap', 'drop', 'insert', 'change', 'keep')).map(([at, letter, edit]) => mutate(base, at, letter, edit))),
      fc.array(letters, { minLength: 1, maxLength: 70 }).map((chars) => chars.join('')),
    );
    fc.assert(
      fc.property(word, fc.subarray(VOCABULARY, { minLength: 1 }), (typed, candidates) => {
        const expected = typed.length > MAX_SUGGESTED_WORD_LENGTH ? undefined : unboundedNearest(typed, candidates);
        expect(nearestWord(typed, candidates)).toBe(expected);
      }),
      { numRuns: 1_000 },
    );
  });
});

function mutate(base: string, at: number, letter: string, edit: string): string {
  switch (edit) {
    case 'swap':
      return at + 1 < base.length ? base.slice(0, at) + (base[at + 1] ?? '') + (base[at] ?? '') + base.slice(at + 2) : base;
    case 'drop':
      return base.length > 1 ? base.slice(0, at) + base.slice(at + 1) : base;
    case 'insert':
      return base.slice(0, at) + letter + base.slice(at);
    case 'change':
      return base.slice(0, at) + letter + base.slice(at + 1);
    default:
      return base;
  }
}
