/**
 * The work of reading one message, bounded. The offline grammar runs on the host's event loop, so a
 * message must not hold it: a message of more tokens than `MAX_MESSAGE_TOKENS` is not read at all, and
 * a reading counts its steps (a token compared by a leaf of a phrase rule, a token walked by free
 * text, a lexeme tried by the tokenizer) against a budget proportional to its tokens. The grammar's
 * work grows linearly with the message (the builder-work tests hold it to that); the budget is the
 * backstop for a rule that would read too far.
 */

/**
 * The most tokens (words, numbers, signs) a message may have to be read: prose of the 4,000
 * characters the routes accept has 500 to 950; a soup of one-character signs has 4,000.
 */
export const MAX_MESSAGE_TOKENS = 1_200;

/**
 * The work budget of a reading, in steps per token. The phrasings of the fixtures take 44 to 256, soups
 * of words and signs about 270 (builder-work tests hold every message under half the budget), so the
 * budget stops only a reading that went wrong: at the cap, 1.2 million steps.
 */
export const STEPS_PER_TOKEN = 1_000;

/** What reading a message cost. */
export interface ReadingWork {
  /** Tokens of the message read (with the message it answers, when read together). */
  tokens: number;
  /** Steps taken by the turn's readings, 0 for a message past the cap. */
  steps: number;
  /** The message had more tokens than `MAX_MESSAGE_TOKENS`, so it was not read. */
  tooLong: boolean;
  /** The reading went past its budget and was stopped. */
  exhausted: boolean;
}

/** Thrown by `step` past the budget; caught by `withinBudget` only. */
class BudgetExhausted extends Error {}

interface Meter {
  steps: number;
  budget: number;
}

/** The meter of the reading running now: readings are synchronous, so one at a time. */
let meter: Meter | undefined;

/** Counts `count` steps of the reading running now (none outside a reading); past its budget, stops it. */
export function step(count = 1): void {
  if (meter === undefined) return;
  meter.steps += count;
  if (meter.steps > meter.budget) throw new BudgetExhausted();
}

/** Runs a synchronous reading with a budget of steps: its value, or that it was stopped, and the steps taken. */
export function withinBudget<T>(budget: number, read: () => T): { value?: T; steps: number; exhausted: boolean } {
  const outer = meter;
  const own: Meter = { steps: 0, budget };
  meter = own;
  try {
    return { value: read(), steps: own.steps, exhausted: false };
  } catch (error) {
    if (error instanceof BudgetExhausted) return { steps: own.steps, exhausted: true };
    throw error;
  } finally {
    meter = outer;
  }
}
