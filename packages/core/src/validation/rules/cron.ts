import { formatDuration, parseDuration } from '../../language/duration.js';
import { LIMITS } from '../../language/limits.js';
import type { Rule } from '../rule.js';

/** Scheduled conditions: instants inside the lifetime, periods of a minute or more, repeat for `every`. */
export const cronSchedules: Rule = {
  name: 'cron-schedules',
  leaf: {
    sources: ['cron'],
    check: (leaf, { query, now, lifetimeMs, sink }) => {
      const expiry = now + lifetimeMs;
      const { args, method } = leaf;
      if (method === 'once' && typeof args.at === 'string') {
        const at = Date.parse(args.at);
        if (Number.isNaN(at)) return;
        if (at > expiry) {
          sink.error('cron-after-expiry', `${leaf.pointer}/args/at`, `${args.at} is after the query expires (${formatDuration(lifetimeMs)} from now), so it never comes`);
        } else if (at <= now) {
          sink.warning('cron-in-past', `${leaf.pointer}/args/at`, `${args.at} has passed, so this condition holds from the start`);
        }
      }
      if (method !== 'every') return;
      const periodMs = parseDuration(args.period);
      if (periodMs !== undefined && periodMs < LIMITS.minCronPeriodMs) {
        sink.error('period-range', `${leaf.pointer}/args/period`, `a cron period must be at least ${formatDuration(LIMITS.minCronPeriodMs)}`);
      }
      const startAt = typeof args.startAt === 'string' ? Date.parse(args.startAt) : NaN;
      if (!Number.isNaN(startAt) && startAt > expiry) {
        sink.error('cron-after-expiry', `${leaf.pointer}/args/startAt`, 'startAt is after the query expires, so it never comes');
      }
      if (query !== undefined && query.repeat === undefined) {
        sink.warning(
          'cron-every-without-repeat',
          leaf.pointer,
          'without query.repeat the query fires once, at the first period; add "repeat": {"cooldown": …} to fire every period',
        );
      }
    },
  },
};
