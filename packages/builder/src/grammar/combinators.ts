/**
 * Parsing-expression combinators over tokens: the building blocks of the phrase rules. A pattern
 * reads from a token index and returns its value and the index after it, or nothing. Choices are
 * ordered (PEG): the first alternative that matches wins, so put longer phrases first. The leaves
 * (`token`, `words`) count a step of the reading's work each time they look at a token (../work.ts).
 */
import type { Token } from '../text/tokens.js';
import { step } from '../work.js';

/** A pattern's value and the index of the token after it. */
export interface Match<T> {
  value: T;
  next: number;
}

/** Reads from a token index: a match, or undefined. */
export type Pattern<T> = (tokens: readonly Token[], at: number) => Match<T> | undefined;

type Values<P extends readonly Pattern<unknown>[]> = { [K in keyof P]: P[K] extends Pattern<infer T> ? T : never };

/** A token satisfying `test`, mapped to a value. */
export function token<T>(test: (token: Token) => T | undefined): Pattern<T> {
  return (tokens, at) => {
    step();
    const current = tokens[at];
    if (current === undefined) return undefined;
    const value = test(current);
    return value === undefined ? undefined : { value, next: at + 1 };
  };
}

/**
 * One of the given phrases, each one or more words separated by spaces (`'greater than'`); returns
 * the phrase matched. Longer phrases are tried first, whatever the order given. The phrases are
 * filed by their first word, so a token is compared only with the phrases that start with it.
 */
export function words(...phrases: string[]): Pattern<string> {
  const split = phrases.map((phrase) => ({ phrase, parts: phrase.split(' ') })).sort((a, b) => b.parts.length - a.parts.length);
  const byFirstWord = new Map<string, Array<{ phrase: string; parts: string[] }>>();
  for (const entry of split) {
    const first = entry.parts[0] as string;
    const filed = byFirstWord.get(first);
    if (filed) filed.push(entry);
    else byFirstWord.set(first, [entry]);
  }
  return (tokens, at) => {
    step();
    const head = tokens[at];
    if (head === undefined || (head.kind !== 'word' && head.kind !== 'punct')) return undefined;
    const candidates = byFirstWord.get(head.lower);
    if (candidates === undefined) return undefined;
    for (const { phrase, parts } of candidates) {
      let read = 1;
      while (read < parts.length) {
        const current = tokens[at + read];
        if (current === undefined || current.lower !== parts[read] || (current.kind !== 'word' && current.kind !== 'punct')) break;
        read += 1;
      }
      if (read === parts.length) return { value: phrase, next: at + read };
    }
    return undefined;
  };
}

/** All in order; the values as a tuple. */
export function seq<P extends readonly Pattern<unknown>[]>(...patterns: P): Pattern<Values<P>> {
  return (tokens, at) => {
    const values: unknown[] = [];
    let index = at;
    for (const pattern of patterns) {
      const match = pattern(tokens, index);
      if (!match) return undefined;
      values.push(match.value);
      index = match.next;
    }
    return { value: values as Values<P>, next: index };
  };
}

/** The first alternative that matches. */
export function first<T>(...patterns: Pattern<T>[]): Pattern<T> {
  return (tokens, at) => {
    for (const pattern of patterns) {
      const match = pattern(tokens, at);
      if (match) return match;
    }
    return undefined;
  };
}

/** The alternative that reads the most tokens (the first of equals). */
export function longest<T>(...patterns: Pattern<T>[]): Pattern<T> {
  return (tokens, at) => {
    let best: Match<T> | undefined;
    for (const pattern of patterns) {
      const match = pattern(tokens, at);
      if (match && (best === undefined || match.next > best.next)) best = match;
    }
    return best;
  };
}

/** Zero or one. */
export function opt<T>(pattern: Pattern<T>): Pattern<T | undefined> {
  return (tokens, at) => pattern(tokens, at) ?? { value: undefined, next: at };
}

/** Zero or more, greedily. */
export function many<T>(pattern: Pattern<T>): Pattern<T[]> {
  return (tokens, at) => {
    const values: T[] = [];
    let index = at;
    for (let match = pattern(tokens, index); match && match.next > index; match = pattern(tokens, index)) {
      values.push(match.value);
      index = match.next;
    }
    return { value: values, next: index };
  };
}

/** One or more. */
export function some<T>(pattern: Pattern<T>): Pattern<T[]> {
  const any = many(pattern);
  return (tokens, at) => {
    const match = any(tokens, at);
    return match && match.value.length > 0 ? match : undefined;
  };
}

/** Transforms the value; a result of `undefined` makes the match fail. */
export function map<T, U>(pattern: Pattern<T>, transform: (value: T, tokens: readonly Token[], from: number, to: number) => U | undefined): Pattern<U> {
  return (tokens, at) => {
    const match = pattern(tokens, at);
    if (!match) return undefined;
    const value = transform(match.value, tokens, at, match.next);
    return value === undefined ? undefined : { value, next: match.next };
  };
}

/** A fixed value for a matched pattern. */
export function as<T>(pattern: Pattern<unknown>, value: T): Pattern<T> {
  return map(pattern, () => value);
}

/** Matches when `pattern` matches here, reading nothing (lookahead). */
export function ahead(pattern: Pattern<unknown>): Pattern<true> {
  return (tokens, at) => (pattern(tokens, at) ? { value: true, next: at } : undefined);
}

/** Matches when `pattern` does not match here, reading nothing. */
export function not(pattern: Pattern<unknown>): Pattern<true> {
  return (tokens, at) => (pattern(tokens, at) ? undefined : { value: true, next: at });
}

/** A pattern defined later (for recursion between rule modules). */
export function lazy<T>(get: () => Pattern<T>): Pattern<T> {
  return (tokens, at) => get()(tokens, at);
}
