/**
 * Duration text as people say it: hours up to a day (`24h`, `12h`), then days (`3d`, `30d`), and
 * minutes or seconds below an hour. Candle timeframes use the core's shortest form (`1d`, `1w`) instead.
 */
import { DAY, HOUR, MINUTE, SECOND } from '@eql/core';

/** `24h`, `3d`, `90m`, `45s`: a duration string the schema accepts. */
export function durationText(ms: number): string {
  const whole = Math.max(SECOND, Math.round(ms / SECOND) * SECOND);
  if (whole % DAY === 0 && whole > DAY) return `${whole / DAY}d`;
  if (whole % HOUR === 0) return `${whole / HOUR}h`;
  if (whole % MINUTE === 0) return `${whole / MINUTE}m`;
  return `${whole / SECOND}s`;
}
