/**
 * Words of a text for the offline analyst: significant terms (stemmed keys with the spelling most
 * seen), cashtags, handles and contract addresses. Pure and deterministic.
 */

/** Function words, chat filler and question words: never significant. */
const STOP_WORDS = new Set(
  (
    'a an the and or but nor of to in on at for by with about from into onto over under as is are was were be been being am this that these those ' +
    'it its it\'s their them they his her him she he our we us your you my me i any some all no not do does did done will would can could should ' +
    'shall may might must has have had than then so if when what which who whom whose how why where there here up down out off new says said ' +
    'say post posts tweet tweets via just very more most also only even still again ever much many such own same other another each every both ' +
    'few too while because until before after above below between through during without within against among per vs get got gets getting ' +
    'go goes going gone make makes made let lets like likes one two three next last first now today tonight yesterday tomorrow week day days ' +
    'hour hours time times year years back way well really pretty quite lot lots thing things something anything nothing everything ' +
    'tell show give explain think know see look looking want need please thanks thank hi hello hey ok okay yes yeah lol lmao gm gn rt ' +
    'im i\'m dont don\'t doesn\'t isn\'t aren\'t wasn\'t can\'t won\'t what\'s whats happening happened happen going recent recently latest current currently ' +
    'anyone someone everyone people guys crypto market markets token tokens coin coins news update updates ' +
    'moving move moves mover movers trending trend hot buzz buzzing talk talking saying discuss discussing mention mentions mentioned overview'
  ).split(' '),
);

const SUFFIXES = ['ings', 'ing', 'edly', 'ed', 'ies', 'es', 's', 'ly'];

/** A light suffix stripper: "approves" and "approved" meet ("approv"), "approval" stays apart. */
export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length);
      if (suffix === 'ies') return `${base}y`;
      // "cutting" → "cut", "stopped" → "stop"; "selling" keeps its "ll".
      if ((suffix === 'ing' || suffix === 'ed') && /([b-df-hj-km-np-tv-z])\1$/.test(base) && !/(ll|ss|zz|ff)$/.test(base)) return base.slice(0, -1);
      return base;
    }
  }
  return word;
}

export interface Term {
  /** The stem, the comparison key. */
  key: string;
  /** The word as written (lower case). */
  surface: string;
}

const WORD = /[$@#]?[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu;

/** Whether a lower-cased word is worth comparing: not a stop word, a number, an address or a fragment of a link. */
function significant(word: string): boolean {
  if (word.length < 3 || word.length > 40) return false;
  if (STOP_WORDS.has(word)) return false;
  if (/^\d[\d,.kmb%x-]*$/.test(word)) return false;
  if (/^0x[0-9a-f]{6,}$/.test(word) || /^(https?|www|com|status)$/.test(word)) return false;
  return /\p{L}/u.test(word);
}

/**
 * Significant terms of a text, in order of appearance, each once: lower-cased words without
 * cashtags, handles, hashtags' `#`, stop words, numbers and addresses, keyed by their stem.
 */
export function significantTerms(text: string): Term[] {
  const seen = new Set<string>();
  const out: Term[] = [];
  const withoutLinks = text.replace(/https?:\/\/\S+/g, ' ');
  for (const raw of withoutLinks.match(WORD) ?? []) {
    if (raw.startsWith('$') || raw.startsWith('@')) continue;
    const word = raw.replace(/^#/, '').toLowerCase().replace(/['_-]+$/, '');
    if (!significant(word) || /^[1-9a-hj-np-z]{32,44}$/i.test(raw)) continue;
    const key = stem(word);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, surface: word });
  }
  return out;
}

/** Stems of the significant terms. */
export function termKeys(text: string): string[] {
  return significantTerms(text).map((term) => term.key);
}

/** Cashtags (`$pepe` → `PEPE`), each once, in order. */
export function cashtags(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:^|[^\p{L}\p{N}_$])\$([A-Za-z][A-Za-z0-9]{0,14})(?![\p{L}\p{N}_])/gu)) out.add((match[1] as string).toUpperCase());
  return [...out];
}

/** Words written in capitals that could be tickers (`ETH`, `PEPE`), each once: checked against the data by the caller. */
export function capitalWords(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:^|[^\p{L}\p{N}_$@])([A-Z][A-Z0-9]{1,9})(?![\p{L}\p{N}_])/gu)) out.add(match[1] as string);
  return [...out];
}

/** Handles (`@cobie` → `cobie`), each once, in order. */
export function handles(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:^|[^\p{L}\p{N}_@])@([A-Za-z0-9_]{1,15})(?![A-Za-z0-9_])/gu)) out.add(match[1] as string);
  return [...out];
}

/** Contract addresses: EVM (`0x` + 40 hex, lower-cased) and Solana-like base58 (32 to 44 characters with a digit). */
export function contractAddresses(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.matchAll(/\b0x[a-fA-F0-9]{40}\b/g)) out.add(match[0].toLowerCase());
  for (const match of text.matchAll(/\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g)) if (/\d/.test(match[0]) && /[a-z]/.test(match[0])) out.add(match[0]);
  return [...out];
}

/** A ticker as the data spells it: upper case, no `$`. */
export function normalizeTicker(symbol: string): string {
  return symbol.trim().replace(/^\$+/, '').toUpperCase();
}
