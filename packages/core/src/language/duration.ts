/**
 * Durations of EQL: a positive whole number and one unit (s, m, h, d, w), such as 30m, 1h, 24h, 7d.
 * The pattern is strict on purpose: `1.5h`, `-1h`, `1M` or `1h30m` are not durations.
 */
export const DURATION_PATTERN = /^[1-9][0-9]{0,6}[smhdw]$/;

/** One second in milliseconds (durations and times are milliseconds throughout). */
export const SECOND = 1_000;
/** One minute in milliseconds. */
export const MINUTE = 60 * SECOND;
/** One hour in milliseconds. */
export const HOUR = 60 * MINUTE;
/** One day in milliseconds. */
export const DAY = 24 * HOUR;
/** One week in milliseconds. */
export const WEEK = 7 * DAY;

const UNIT_MS: Record<string, number> = { s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: WEEK };

/** Durations already read: queries use a handful of distinct ones (1h, 24h, 7d, ...). */
const parsed = new Map<string, number>();

/** Milliseconds of a duration string, or undefined when it is not one. */
export function parseDuration(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const known = parsed.get(text);
  if (known !== undefined) return known;
  if (!DURATION_PATTERN.test(text)) return undefined;
  const ms = Number(text.slice(0, -1)) * (UNIT_MS[text[text.length - 1] as string] as number);
  if (parsed.size < 1024) parsed.set(text, ms);
  return ms;
}

/** The shortest duration string for a whole number of seconds or more (90m stays 90m, 120m becomes 2h). */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.max(1, Math.round(ms / SECOND))}s`;
}
