/**
 * The scanner: reads a token list left to right, at each token keeping the longest reading among
 * all phrase rules (the earlier rule of equals). Words no rule reads are kept as not understood,
 * unless they are filler (articles, politeness) or punctuation.
 */
import { FILLER_WORDS } from '../text/lexicon.js';
import type { Token } from '../text/tokens.js';
import type { Located, Piece } from './pieces.js';
import { PHRASE_RULES } from './rules.js';

/** The pieces of a message and the tokens nothing read. */
export interface ScanResult {
  tokens: readonly Token[];
  /** Pieces in message order, each with the token range it was read from. */
  pieces: Located[];
  /** Indexes of the tokens no rule read and that carry meaning. */
  unknown: number[];
}

/** Reads every piece of meaning in a token list. Never throws. */
export function scan(tokens: readonly Token[]): ScanResult {
  const pieces: Located[] = [];
  const unknown: number[] = [];
  let at = 0;
  while (at < tokens.length) {
    const best = bestReading(tokens, at);
    if (best) {
      for (const piece of best.pieces) pieces.push({ ...piece, from: at, to: best.next });
      at = best.next;
      continue;
    }
    if (carriesMeaning(tokens[at] as Token)) unknown.push(at);
    at += 1;
  }
  return { tokens, pieces, unknown };
}

function bestReading(tokens: readonly Token[], at: number): { pieces: Piece[]; next: number } | undefined {
  let best: { pieces: Piece[]; next: number } | undefined;
  for (const candidate of PHRASE_RULES) {
    const match = candidate.pattern(tokens, at);
    if (match && match.next > at && (best === undefined || match.next > best.next)) best = { pieces: match.value, next: match.next };
  }
  return best;
}

/** Whether a token left unread should be reported: words that are not filler, numbers, handles, links. */
export function carriesMeaning(token: Token): boolean {
  if (token.kind === 'punct') return false;
  if (token.kind === 'word') return !FILLER_WORDS.has(token.lower);
  return true;
}
