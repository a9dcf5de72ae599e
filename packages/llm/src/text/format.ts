/**
 * Deterministic formatting for replies: no locale, no time zone but UTC, no randomness, so the
 * same data always reads the same.
 */

/** The first line of every offline reply. */
export const OFFLINE_NOTICE = '_Offline analyst (no language model configured): answers are computed from the local data._';

/** 950 → "950", 12_345 → "12.3k", 2_100_000 → "2.1M". */
export function compact(value: number): string {
  if (!Number.isFinite(value)) return '0';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  const scaled = (n: number, unit: string) => `${sign}${(Math.round(n * 10) / 10).toFixed(n >= 100 ? 0 : 1).replace(/\.0$/, '')}${unit}`;
  if (abs >= 1e9) return scaled(abs / 1e9, 'B');
  if (abs >= 1e6) return scaled(abs / 1e6, 'M');
  if (abs >= 1e3) return scaled(abs / 1e3, 'k');
  return `${sign}${Math.round(abs)}`;
}

/** 12.345 → "+12.3%", -3 → "-3%"; undefined (no base) → "new". */
export function signedPercent(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return 'new';
  const rounded = Math.round(value * 10) / 10;
  return `${rounded > 0 ? '+' : ''}${rounded}%`;
}

/** Change from `before` to `now` in percent, undefined when there was nothing before. */
export function changePercent(now: number, before: number): number | undefined {
  return before > 0 ? ((now - before) / before) * 100 : undefined;
}

/** "2026-01-08 10:05 UTC" */
export function utcMinute(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A Markdown link whose text is safe: brackets and backticks dropped. */
export function mdLink(text: string, url: string): string {
  return `[${text.replace(/[[\]`]/g, '')}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
}

/** "1 post" / "3 posts" */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${compact(count)} ${count === 1 ? noun : pluralNoun}`;
}

/** A display form of a term key list: tokens as `$PEPE`, words as written. */
export function listWords(words: readonly string[], max = 4): string {
  const shown = words.slice(0, max);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1] as string}`;
}

/** Text cut to `max` characters at a word boundary, with an ellipsis; newlines flattened. */
export function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
