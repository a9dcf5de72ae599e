/**
 * Rules of schedules (`cron` conditions): `every day at 9:00`, `every monday at 10am`, `daily
 * summary`, `once at 2026-03-01 14:00`, `tomorrow at 9am`. Times are UTC. A bare `every 4h` is an
 * option (../assemble decides: the period of an llm condition before it, or a schedule).
 */
import { DAY, HOUR, WEEK, formatDuration, type ConditionNode } from '@eql/core';
import { symbol } from './common.js';
import { first, map, opt, seq, token, words, type Pattern } from './combinators.js';
import type { ActionPiece, ConditionPiece, Piece } from './pieces.js';
import { rule, rules, type PhraseRule } from './rule.js';
import { clock } from './values.js';

/** ISO 8601 in UTC without milliseconds. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

/** The first instant after `now` at the given UTC time of day, `dayOffset` days on at least. */
export function nextClock(now: number, hour: number, minute: number, dayOffset = 0): number {
  const day = new Date(now);
  let at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + dayOffset, hour, minute);
  if (dayOffset === 0 && at <= now) at += DAY;
  return at;
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

const weekday: Pattern<number> = token((t) => {
  const index = WEEKDAYS.findIndex((day) => t.lower === day || t.lower === `${day}s` || t.lower === day.slice(0, 3));
  return index >= 0 ? index : undefined;
});

const at = opt(words('at', 'around', '@'));

/** A `cron every` condition of the given period, first at the next occurrence of `startAt` (by period) when given. */
export function everyCondition(periodMs: number, startAt?: number): ConditionPiece {
  const period = formatDuration(periodMs);
  return {
    kind: 'condition',
    source: 'cron',
    recurringMs: periodMs,
    build: ({ now }) => {
      const node: ConditionNode = { source: 'cron', method: 'every', args: { period } };
      if (startAt !== undefined) node.args.startAt = isoOf(startAt > now ? startAt : startAt + Math.ceil((now - startAt) / periodMs) * periodMs);
      return { node };
    },
  };
}

function once(at: (now: number) => number | undefined, what: string): ConditionPiece {
  return {
    kind: 'condition',
    source: 'cron',
    build: ({ now }) => {
      const instant = at(now);
      return instant === undefined || !Number.isFinite(instant) ? { question: `I could not read the date of "${what}"; write it as 2026-03-01 14:00 (UTC).` } : { node: { source: 'cron', method: 'once', args: { at: isoOf(instant) } } };
    },
  };
}

const DAILY = words('every day', 'each day', 'daily', 'every morning', 'every evening', 'every night', 'once a day', 'once per day', 'each morning');

/** `every day at 9:00`, `daily at 9am`, `at 9:00 every day`. */
const dailyAt: Pattern<ConditionPiece> = first(
  map(seq(DAILY, at, clock), ([, , time]) => dailyFrom(time)),
  map(seq(words('at'), clock, DAILY), ([, time]) => dailyFrom(time)),
);

function dailyFrom(time: { hour: number; minute: number }): ConditionPiece {
  // Anchored at 2000-01-01 at that time; the build moves it to the next occurrence after now.
  return everyCondition(DAY, Date.UTC(2000, 0, 1, time.hour, time.minute));
}

/** `every monday at 10am`, `each friday`. */
const weekly: Pattern<ConditionPiece> = map(seq(words('every', 'each', 'on'), weekday, opt(seq(at, clock))), ([, day, time]) => {
  const hour = time?.[1].hour ?? 9;
  const minute = time?.[1].minute ?? 0;
  // 2000-01-02 was a Sunday.
  return everyCondition(WEEK, Date.UTC(2000, 0, 2 + day, hour, minute));
});

/** `once at 2026-03-01 14:00`, `on 2026-03-01 at 9am`, `at 2026-03-01T14:00Z`. */
const onDate: Pattern<ConditionPiece> = map(
  seq(opt(words('once', 'once at', 'once on', 'on', 'at')), token((t) => (t.kind === 'date' ? t.text : undefined)), opt(seq(at, clock))),
  ([, date, time]) =>
    once(() => {
      const hasTime = date.length > 10;
      const base = Date.parse(hasTime && !/(Z|[+-]\d{2}:?\d{2})$/.test(date) ? `${date.replace(' ', 'T')}Z` : hasTime ? date.replace(' ', 'T') : `${date}T00:00:00Z`);
      if (!time || hasTime) return base;
      return base + (time[1].hour * 60 + time[1].minute) * 60_000;
    }, date),
);

/** `on march 3 at 14:00`, `3 march at 9am`. */
const onMonthDay: Pattern<ConditionPiece> = map(
  seq(
    opt(words('once on', 'on', 'once')),
    first(
      map(seq(token((t) => monthOf(t.lower)), token((t) => dayOf(t))), ([month, day]) => ({ month, day })),
      map(seq(token((t) => dayOf(t)), opt(words('of')), token((t) => monthOf(t.lower))), ([day, , month]) => ({ month, day })),
    ),
    opt(seq(at, clock)),
  ),
  ([, { month, day }, time]) =>
    once((now) => {
      const year = new Date(now).getUTCFullYear();
      const hour = time?.[1].hour ?? 9;
      const minute = time?.[1].minute ?? 0;
      const thisYear = Date.UTC(year, month, day, hour, minute);
      return thisYear > now ? thisYear : Date.UTC(year + 1, month, day, hour, minute);
    }, `${MONTHS[month]} ${day}`),
);

function monthOf(word: string): number | undefined {
  const index = MONTHS.findIndex((month) => word === month || (word.length >= 3 && month.startsWith(word)));
  return index >= 0 ? index : undefined;
}

function dayOf(t: { kind: string; value?: number; unit?: string; text: string }): number | undefined {
  if (t.kind !== 'number' || t.value === undefined || !Number.isInteger(t.value)) return undefined;
  if (t.unit !== undefined && !['st', 'nd', 'rd', 'th'].includes(t.unit)) return undefined;
  return t.value >= 1 && t.value <= 31 ? t.value : undefined;
}

/** `tomorrow at 9am`, `today at 17:00`, `at 9pm`, `at 9:00 tomorrow`. */
const relativeDay: Pattern<ConditionPiece> = first(
  map(seq(opt(words('once')), words('tomorrow', 'today', 'tonight'), at, clock), ([, day, , time]) => onDay(day, time)),
  map(seq(opt(words('once')), words('at'), clock, opt(words('tomorrow', 'today', 'tonight'))), ([, , time, day]) => onDay(day ?? 'next', time)),
);

function onDay(day: string, time: { hour: number; minute: number }): ConditionPiece {
  return once((now) => nextClock(now, time.hour, time.minute, day === 'tomorrow' ? 1 : 0), `${day} at ${time.hour}:${String(time.minute).padStart(2, '0')}`);
}

/** `daily summary of BTC`, `hourly report`, `weekly market recap`: a schedule and a summary analysis. */
const digest: Pattern<Piece[]> = map(
  seq(
    words('daily', 'hourly', 'weekly', 'a daily', 'an hourly', 'a weekly', 'every day a', 'every morning a'),
    opt(words('market', 'crypto', 'price', 'news')),
    words('summary', 'summaries', 'report', 'update', 'updates', 'digest', 'recap', 'briefing', 'overview', 'analysis'),
    opt(seq(words('of', 'for', 'on', 'about'), symbol)),
    opt(seq(at, clock)),
  ),
  ([period, , , subject, time]) => {
    const periodMs = period.includes('hour') ? HOUR : period.includes('week') ? WEEK : DAY;
    const startAt = time === undefined ? undefined : Date.UTC(2000, 0, 1, time[1].hour, time[1].minute);
    const action: ActionPiece = { kind: 'action', action: { type: 'llm', analysisType: 'summary' } };
    if (subject !== undefined) action.action = { type: 'llm', analysisType: 'summary', symbol: subject[1] };
    return [everyCondition(periodMs, startAt), action];
  },
);

/** The rules of this module. */
export const SCHEDULE_RULES: PhraseRule[] = [
  rules('digest', digest, true),
  rule('daily at', dailyAt, true),
  rule('weekly on', weekly, true),
  rule('on date', onDate, true),
  rule('on month day', onMonthDay, true),
  rule('relative day', relativeDay, true),
];
