/**
 * "Did you mean": the nearest word of a list to a misspelled one, by the optimal string alignment
 * distance (insertions, deletions, substitutions and swaps of two neighbours each cost 1, so `ntoify`
 * is one step from `notify`). A word is only suggested when it is close for its length, so a
 * symbol such as `BTC` is never taken for a keyword.
 *
 * The work is bounded whatever the text: a word longer than {@link MAX_SUGGESTED_WORD_LENGTH} gets no
 * suggestion (no word of EQL is near it), and a candidate whose length differs from the word's by more
 * than the tolerance is skipped unmeasured (the distance is at least the difference). A document that
 * is one huge word (a request body, an editor buffer) so costs no alignment at all.
 */

/** Words longer than this get no suggestion: every candidate is a keyword or a measure word, far shorter. */
export const MAX_SUGGESTED_WORD_LENGTH = 64;

let cellsFilled = 0;

/** Cells of alignment matrices filled by {@link editDistance} in this process so far: the work spelling suggestions cost. */
export function editDistanceCells(): number {
  return cellsFilled;
}

/** The edit distance between two words (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  cellsFilled += rows * cols;
  for (let i = 0; i < rows; i += 1) d[i * cols] = i;
  for (let j = 0; j < cols; j += 1) d[j] = j;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((d[(i - 1) * cols + j] as number) + 1, (d[i * cols + j - 1] as number) + 1, (d[(i - 1) * cols + j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (d[(i - 2) * cols + j - 2] as number) + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1] as number;
}

/** How far a word of this length may be from a suggestion: 1 for short words, a third of the length beyond. */
function tolerance(length: number): number {
  return Math.max(1, Math.floor(length / 3));
}

function commonPrefix(a: string, b: string): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}

/** The nearest candidate to `word` (compared in lowercase) within its tolerance; a tie goes to the longer common start, then to the first listed. */
export function nearestWord(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_SUGGESTED_WORD_LENGTH) return undefined;
  const lower = word.toLowerCase();
  const allowed = tolerance(Math.max(lower.length, 2));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === lower) return candidate;
    // Two letters or fewer are too short to guess from (`a` is near `as`, `at`, `all`, ...).
    if (lower.length < 2 && candidate.length > 2) continue;
    // Too far by length alone: it could never be within the tolerance.
    if (Math.abs(candidate.length - lower.length) > allowed) continue;
    const distance = editDistance(lower, candidate);
    // A tie goes to the candidate that starts like the word (`al` is `all` before `at`).
    if (distance < bestDistance || (distance === bestDistance && best !== undefined && commonPrefix(lower, candidate) > commonPrefix(lower, best))) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= allowed ? best : undefined;
}
