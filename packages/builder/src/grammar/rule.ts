/**
 * A phrase rule: a pattern of words and what it means. The scanner tries every rule at every word
 * and keeps the longest reading (the earlier rule of equals).
 */
import { map, type Pattern } from './combinators.js';
import type { Piece } from './pieces.js';

/** A named pattern of words and the pieces of meaning it reads. */
export interface PhraseRule {
  /** Shown in tests and traces. */
  name: string;
  /** Whether the rule starts a new clause, so free text before it ends there (actions, options, sources). */
  boundary: boolean;
  /** The pieces read; an empty list is a known phrase without meaning of its own (`as long as`). */
  pattern: Pattern<Piece[]>;
}

/** A rule producing one piece. */
export function rule<T extends Piece>(name: string, pattern: Pattern<T>, boundary = false): PhraseRule {
  return { name, boundary, pattern: map(pattern, (piece) => [piece]) };
}

/** A rule producing several pieces (or none). */
export function rules(name: string, pattern: Pattern<Piece[]>, boundary = false): PhraseRule {
  return { name, boundary, pattern };
}
