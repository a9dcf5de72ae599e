/** The range of a JavaScript Date, in epoch ms. */
const MAX_TIME = 8.64e15;

/**
 * An instant given by a person or a client: an ISO 8601 date and time with a zone
 * (`2026-01-06T00:00:00Z`, `2026-01-06T01:00:00+01:00`) or epoch milliseconds (`1767657600000`).
 * Undefined for anything else (a date without a time or zone, seconds, a number out of range).
 */
export function parseInstant(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d{1,16}$/.test(trimmed)) {
    const ms = Number(trimmed);
    return ms <= MAX_TIME ? ms : undefined;
  }
  return parseIsoTime(trimmed);
}

/**
 * ISO 8601 date and time with a zone: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` then `Z` or `±HH:MM`
 * (`±HHMM`, `±HH` too). Years may use the extended form `±YYYYYY` of Date#toISOString. Fractions
 * beyond milliseconds are truncated.
 */
const ISO_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Epoch ms of an ISO 8601 time with a zone, or undefined when it is not one (or not a real date). */
export function parseIsoTime(text: string): number | undefined {
  const match = ISO_TIME.exec(text);
  if (match === null) return undefined;
  const [, yearText = '', monthText = '', dayText = '', hourText = '', minuteText = '', secondText, fraction, zulu, sign, offsetHours, offsetMinutes] = match;
  if (yearText === '-000000') return undefined;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = secondText === undefined ? 0 : Number(secondText);
  const millisecond = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (zulu === undefined) {
    const hours = Number(offsetHours ?? '0');
    const minutes = Number(offsetMinutes ?? '0');
    if (hours > 23 || minutes > 59) return undefined;
    offset = (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  const time = date.getTime() - offset;
  return Number.isFinite(time) && Math.abs(time) <= MAX_TIME ? time : undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
