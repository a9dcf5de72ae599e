import type { SemanticMatcher } from './interfaces.js';

/**
 * The default semantic matcher: deterministic and explainable. The confidence is the share of the
 * condition's content words found in the item (after lowercasing, dropping stop words and light
 * suffix stripping), weighted by word length so that "dogecoin" counts more than "new", scaled to 0–100.
 * A condition with no content words matches nothing. Pluggable: an embedding matcher implements the
 * same interface.
 */

const STOP_WORDS = new Set(
  'a an the and or but of to in on at for by with about from into over under as is are was were be been being this that these those it its their his her our your my any some all no not do does did will would can could should may might must has have had than then so if when what which who whom whose how why where there here up down out off new says said say posts post tweets tweet about via just very more most'.split(
    ' ',
  ),
);

function stem(word: string): string {
  for (const suffix of ['ings', 'ing', 'ed', 'es', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Content words of a text, stemmed. */
export function contentWords(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9$#@][a-z0-9$#@'.-]*/g) ?? [];
  const out: string[] = [];
  for (const raw of words) {
    const word = raw.replace(/^[$#@]+/, '').replace(/['.-]+$/, '');
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

export class LexicalMatcher implements SemanticMatcher {
  private readonly cache = new Map<string, string[]>();

  match(conditionText: string, itemText: string): number {
    let wanted = this.cache.get(conditionText);
    if (wanted === undefined) {
      wanted = [...new Set(contentWords(conditionText))];
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(conditionText, wanted);
    }
    if (wanted.length === 0) return 0;
    const present = new Set(contentWords(itemText));
    let total = 0;
    let found = 0;
    for (const word of wanted) {
      const weight = Math.min(word.length, 8);
      total += weight;
      if (present.has(word)) found += weight;
    }
    return Math.round((100 * found) / total);
  }
}
