import { formatDuration, parseDuration } from '../../language/duration.js';
import { LIMITS } from '../../language/limits.js';
import type { Rule } from '../rule.js';

/** Spec 8: an llm condition is judged at most once an hour; a period beyond the lifetime judges once. */
export const llmPeriod: Rule = {
  name: 'llm-period',
  leaf: {
    sources: ['llm'],
    check: (leaf, { lifetimeMs, sink }) => {
      const period = leaf.args.period;
      const ms = parseDuration(period);
      if (ms === undefined) return;
      if (ms < LIMITS.minLlmPeriodMs) {
        const path = `${leaf.pointer}/args/period`;
        const minimum = formatDuration(LIMITS.minLlmPeriodMs);
        sink.error('llm-period-too-short', path, `an llm condition period must be at least ${minimum} (got ${String(period)})`, {
          title: `Raise the period to ${minimum}`,
          edits: [{ op: 'replace', path, value: minimum }],
        });
      } else if (ms > lifetimeMs) {
        sink.warning(
          'period-exceeds-lifetime',
          `${leaf.pointer}/args/period`,
          `the period ${String(period)} is longer than the query's lifetime (${formatDuration(lifetimeMs)}): the condition is judged only once`,
        );
      }
    },
  },
};
