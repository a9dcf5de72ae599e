import { formatDuration, parseDuration } from '../../language/duration.js';
import { LIMITS } from '../../language/limits.js';
import { isRecord } from '../../util/json-pointer.js';
import type { DiagnosticSink } from '../diagnostic.js';
import type { Rule } from '../rule.js';

/**
 * Bounds of durations (their form is the schema's): the lifetime, hold-for spans that the lifetime
 * cannot contain, a repeat cooldown that leaves no second trigger, price statistic windows.
 */
export const durations: Rule = {
  name: 'durations',
  request: ({ query, lifetimeMs, sink }) => {
    if (query === undefined) return;
    const expiresIn = query.expiresIn;
    if (typeof expiresIn === 'string') {
      const expiresMs = parseDuration(expiresIn);
      if (expiresMs !== undefined && (expiresMs < LIMITS.minLifetimeMs || expiresMs > LIMITS.maxLifetimeMs)) {
        sink.error(
          'expires-range',
          '/query/expiresIn',
          `expiresIn must be from ${formatDuration(LIMITS.minLifetimeMs)} to ${formatDuration(LIMITS.maxLifetimeMs)} (got ${expiresIn})`,
        );
      }
    }
    if (!isRecord(query.repeat)) return;
    const cooldownMs = parseDuration(query.repeat.cooldown);
    if (cooldownMs !== undefined && cooldownMs >= lifetimeMs) {
      sink.warning(
        'cooldown-exceeds-lifetime',
        '/query/repeat/cooldown',
        `the cooldown ${String(query.repeat.cooldown)} is not shorter than the query's lifetime (${formatDuration(lifetimeMs)}), so it fires at most once`,
      );
    }
  },
  group: (group, { lifetimeMs, sink }) => checkHoldFor(group.node, group.pointer, lifetimeMs, sink),
  leaf: {
    sources: '*',
    check: (leaf, { lifetimeMs, sink }) => {
      checkHoldFor(leaf.node, leaf.pointer, lifetimeMs, sink);
      const { method } = leaf;
      if (leaf.source !== 'price' || method === 'current') return;
      const period = leaf.args.period;
      const periodMs = parseDuration(period);
      if (periodMs !== undefined && (periodMs < LIMITS.minPricePeriodMs || periodMs > LIMITS.maxPricePeriodMs)) {
        sink.error(
          'period-range',
          `${leaf.pointer}/args/period`,
          `a price ${String(method)} period must be from ${formatDuration(LIMITS.minPricePeriodMs)} to ${formatDuration(LIMITS.maxPricePeriodMs)} (got ${String(period)})`,
        );
      }
    },
  },
};

function checkHoldFor(node: Record<string, unknown>, pointer: string, lifetimeMs: number, sink: DiagnosticSink): void {
  const holdFor = node.holdFor;
  if (typeof holdFor !== 'string') return;
  const holdMs = parseDuration(holdFor);
  if (holdMs !== undefined && holdMs >= lifetimeMs) {
    sink.error(
      'hold-too-long',
      `${pointer}/holdFor`,
      `holdFor ${holdFor} is not shorter than the query's lifetime (${formatDuration(lifetimeMs)}), so it can never be met`,
    );
  }
}
