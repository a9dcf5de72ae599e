/**
 * Keywords to an FTS5 MATCH expression: each keyword is a phrase of its words (letters and digits;
 * `$`, `#`, `@` and punctuation are separators, as in the index), keywords are alternatives (OR).
 * Matching is case- and diacritic-insensitive, on whole words. Returns undefined when no keyword has
 * a word in it.
 */
export function ftsMatchExpression(keywords: readonly string[]): string | undefined {
  const phrases: string[] = [];
  for (const keyword of keywords) {
    const words = keyword.normalize('NFKC').match(/[\p{L}\p{N}]+/gu);
    if (!words || words.length === 0) continue;
    phrases.push(`"${words.join(' ')}"`);
  }
  return phrases.length === 0 ? undefined : phrases.join(' OR ');
}
