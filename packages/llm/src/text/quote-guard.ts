/**
 * Keeps post text out of replies (spec 2.11: raw post text is never returned). Post excerpts may go
 * to the model, so a model's reply could copy them: any run of `minWords` or more consecutive words
 * of a source text (compared without case or punctuation) is replaced by a link to that source.
 * Short quotes of a few words stay.
 */

/** A text the model was shown (a post's or a news item's) and the link that replaces any long run of it copied into a reply. */
export interface QuoteSource {
  text: string;
  link: string;
}

interface Word {
  norm: string;
  start: number;
  end: number;
}

function wordsOf(text: string): Word[] {
  const out: Word[] = [];
  for (const match of text.matchAll(/[\p{L}\p{N}$@#][\p{L}\p{N}$@#'’_.-]*/gu)) {
    const norm = match[0].toLowerCase().replace(/[’']/g, '').replace(/[._-]+$/, '');
    if (norm === '') continue;
    out.push({ norm, start: match.index, end: match.index + match[0].length });
  }
  return out;
}

const gram = (words: readonly Word[], at: number, size: number) =>
  words
    .slice(at, at + size)
    .map((word) => word.norm)
    .join(' ');

/** The reply with every long verbatim run of a source replaced by `[post](link)`. */
export function guardQuotes(reply: string, sources: readonly QuoteSource[], minWords = 8): string {
  if (sources.length === 0 || reply === '') return reply;
  const grams = new Map<string, string>();
  for (const source of sources) {
    const words = wordsOf(source.text);
    for (let i = 0; i + minWords <= words.length; i++) {
      const key = gram(words, i, minWords);
      if (!grams.has(key)) grams.set(key, source.link);
    }
  }
  if (grams.size === 0) return reply;
  const words = wordsOf(reply);
  let out = '';
  let cursor = 0;
  for (let i = 0; i + minWords <= words.length; ) {
    const link = grams.get(gram(words, i, minWords));
    if (link === undefined) {
      i++;
      continue;
    }
    let last = i;
    while (last + 1 + minWords <= words.length && grams.has(gram(words, last + 1, minWords))) last++;
    const first = words[i] as Word;
    const final = words[last + minWords - 1] as Word;
    out += `${reply.slice(cursor, first.start)}[post](${link})`;
    cursor = final.end;
    i = last + minWords;
  }
  return out + reply.slice(cursor);
}
