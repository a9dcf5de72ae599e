import { ApiError } from '../../http/errors.js';
import type { TimeRange } from '@eql/market-data';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
/** The longest window or from/to span. */
export const MAX_SPAN_MS = 366 * UNIT_MS.d;
const MIN_SPAN_MS = UNIT_MS.m;

export interface TimeFilterInput {
  timeWindow?: string;
  from?: string;
  to?: string;
}

/** `15m`, `4h`, `7d`, `2w` to milliseconds; undefined when it is not such a duration or out of bounds. */
export function parseWindow(text: string): number | undefined {
  const match = /^(\d{1,4})([mhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms >= MIN_SPAN_MS && ms <= MAX_SPAN_MS ? ms : undefined;
}

/** An instant given as ISO 8601 (with a zone or `Z`) or as epoch milliseconds. */
export function parseInstant(text: string, name: string): number {
  const trimmed = text.trim();
  const ms = /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (!Number.isFinite(ms)) throw new ApiError('invalid_time', `${name} must be an ISO 8601 instant (2026-11-20T00:00:00Z) or epoch milliseconds, not "${text.slice(0, 40)}"`);
  return ms;
}

/**
 * The time filter of the data endpoints, in one place (spec 4.2): EITHER `timeWindow` (the window
 * ending now) OR both `from` and `to` ([from, to)). When both forms are given, `from`/`to` wins and
 * `timeWindow` is ignored. Neither: the endpoint's default window ending now.
 */
export function resolveTimeFilter(input: TimeFilterInput, now: number, defaultWindowMs: number): TimeRange {
  const hasFrom = input.from !== undefined && input.from !== '';
  const hasTo = input.to !== undefined && input.to !== '';
  if (hasFrom || hasTo) {
    if (!hasFrom || !hasTo) throw new ApiError('invalid_time', 'give both from and to (or timeWindow instead)');
    const from = parseInstant(input.from as string, 'from');
    const to = parseInstant(input.to as string, 'to');
    if (from >= to) throw new ApiError('invalid_time', 'from must be before to');
    if (to - from > MAX_SPAN_MS) throw new ApiError('invalid_time', 'from and to may be at most 366 days apart');
    return { from, to };
  }
  if (input.timeWindow !== undefined && input.timeWindow !== '') {
    const window = parseWindow(input.timeWindow);
    if (window === undefined) throw new ApiError('invalid_time', `timeWindow must be a duration from 1m to 366d such as 1h, 24h, 7d or 2w, not "${input.timeWindow.slice(0, 40)}"`);
    return { from: now - window, to: now };
  }
  return { from: now - defaultWindowMs, to: now };
}

/** The window of the same length just before a range (trending comparisons). */
export const previousRange = (range: TimeRange): TimeRange => ({ from: range.from - (range.to - range.from), to: range.from });
