/**
 * Parsing-expression combinators over tokens: the building blocks of the phrase rules. A pattern
 * reads from a token index and returns its value and the index after it, or nothing. Choices are
 * ordered (PEG): the first alternative that matches wins, so put longer phrases first.
 */
import type { Token } from '../text/tokens.js';

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
    const current = tokens[at];
    if (current === undefined) return undefined;
    const value = test(current);
    return value === undefined ? undefined : { value, next: at + 1 };
  };
}

/**
 * One of the given phrases, each one or more words separated by spaces (`'greater than'`); returns
 * the phrase matched. Longer phrases are tried first, whatever the order given.
 */
export function words(...phrases: string[]): Pattern<string> {
  const split = phrases.map((phrase) => ({ phrase, parts: phrase.split(' ') })).sort((a, b) => b.parts.length - a.parts.length);
  return (tokens, at) => {
    for (const { phrase, parts } of split) {
      let index = at;
      for (const part of parts) {
        const current = tokens[index];
        if (current === undefined || current.lower !== part || (current.kind !== 'word' && current.kind !== 'punct')) break;
        index += 1;
      }
      if (index - at === parts.length) return { value: phrase, next: index };
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
