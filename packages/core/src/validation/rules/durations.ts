import { formatDuration, parseDuration } from '../../language/duration.js';
import { LIMITS } from '../../language/limits.js';
import { argsOf, walkConditions } from '../../language/query-walk.js';
import { isRecord, joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/**
 * Bounds of durations (their form is the schema's): the lifetime, hold-for spans that the lifetime
 * cannot contain, a repeat cooldown that leaves no second trigger, price statistic windows.
 */
export const durations: Rule = ({ query, lifetimeMs, sink }) => {
  if (query === undefined) return;
  const lifetime = formatDuration(lifetimeMs);
  const expiresMs = parseDuration(query.expiresIn);
  if (expiresMs !== undefined && (expiresMs < LIMITS.minLifetimeMs || expiresMs > LIMITS.maxLifetimeMs)) {
    sink.error(
      'expires-range',
      '/query/expiresIn',
      `expiresIn must be from ${formatDuration(LIMITS.minLifetimeMs)} to ${formatDuration(LIMITS.maxLifetimeMs)} (got ${String(query.expiresIn)})`,
    );
  }

  walkConditions(query.conditions, '/query/conditions', (visit) => {
    const holdMs = parseDuration(visit.node.holdFor);
    if (holdMs !== undefined && holdMs >= lifetimeMs) {
      sink.error(
        'hold-too-long',
        joinPointer(visit.pointer, 'holdFor'),
        `holdFor ${String(visit.node.holdFor)} is not shorter than the query's lifetime (${lifetime}), so it can never be met`,
      );
    }
    if (visit.kind !== 'leaf' || visit.node.source !== 'price' || visit.node.method === 'current') return;
    const period = argsOf(visit.node).period;
    const periodMs = parseDuration(period);
    if (periodMs !== undefined && (periodMs < LIMITS.minPricePeriodMs || periodMs > LIMITS.maxPricePeriodMs)) {
      sink.error(
        'period-range',
        joinPointer(visit.pointer, 'args', 'period'),
        `a price ${String(visit.node.method)} period must be from ${formatDuration(LIMITS.minPricePeriodMs)} to ${formatDuration(LIMITS.maxPricePeriodMs)} (got ${String(period)})`,
      );
    }
  });

  const repeat = isRecord(query.repeat) ? query.repeat : undefined;
  const cooldownMs = parseDuration(repeat?.cooldown);
  if (repeat && cooldownMs !== undefined && cooldownMs >= lifetimeMs) {
    sink.warning(
      'cooldown-exceeds-lifetime',
      '/query/repeat/cooldown',
      `the cooldown ${String(repeat.cooldown)} is not shorter than the query's lifetime (${lifetime}), so it fires at most once`,
    );
  }
};
