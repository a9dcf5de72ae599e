/**
 * The first stage of the offline grammar: one canonical spelling of the message, so the tokenizer
 * and the phrase rules see one form of each quote, dash and space. Case is kept (an upper-case word
 * may be a ticker); the rules compare lower-cased tokens.
 */

/** Longest message the grammar reads; the rest is ignored (and the reply says so). */
export const MAX_MESSAGE_LENGTH = 4000;

const REPLACEMENTS: ReadonlyArray<readonly [RegExp, string]> = [
  // Zero-width and other invisible format characters.
  [/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, ''],
  // Curly and angle quotes.
  [/[\u2018\u2019\u201A\u201B\u2032\u00B4`]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/g, '"'],
  // A spaced dash between words is a pause, like a comma; other dashes and minus signs are hyphens.
  [/\s[\u2012\u2013\u2014\u2015]\s/g, ', '],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\uFE63\uFF0D]/g, '-'],
  // Comparison signs written as one character.
  [/\u2265/g, '>='],
  [/\u2264/g, '<='],
  [/\u2260/g, '!='],
  [/\u2192/g, ' then '],
  // Any run of white space (line breaks included) is one space.
  [/\s+/g, ' '],
];

/** Normalizes a chat message: unicode compatibility forms, quotes, dashes, spaces. Never throws. */
export function normalizeMessage(message: string): string {
  let text = message.length > MAX_MESSAGE_LENGTH ? message.slice(0, MAX_MESSAGE_LENGTH) : message;
  text = text.normalize('NFKC');
  for (const [pattern, replacement] of REPLACEMENTS) text = text.replace(pattern, replacement);
  return text.trim();
}
