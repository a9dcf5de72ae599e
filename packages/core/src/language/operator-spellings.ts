/**
 * Operators as people write them elsewhere (`=>`, `≥`, `<>`, `crosses above`) and the operator of the
 * language each one means, for a "did you mean" where the schema only says what is allowed.
 */
const SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['=>', '>='],
  ['≥', '>='],
  ['=<', '<='],
  ['≤', '<='],
  ['<>', '!='],
  ['≠', '!='],
  ['!==', '!='],
  ['=', '=='],
  ['===', '=='],
  ['crosses_over', 'crosses_above'],
  ['crosses_under', 'crosses_below'],
  ['cross_above', 'crosses_above'],
  ['cross_below', 'crosses_below'],
  ['crossesabove', 'crosses_above'],
  ['crossesbelow', 'crosses_below'],
]);

/** The operator a misspelled one means (`=>` is `>=`, `crosses above` is `crosses_above`), or undefined. */
export function operatorMeant(written: unknown): string | undefined {
  if (typeof written !== 'string') return undefined;
  const text = written.trim().toLowerCase();
  const words = text.replace(/[\s-]+/g, '_');
  if (words === 'crosses_above' || words === 'crosses_below') return words;
  return SPELLINGS.get(text) ?? SPELLINGS.get(words);
}
