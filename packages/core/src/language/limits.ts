import { DAY, HOUR, MINUTE } from './duration.js';

/** Bounds of the language that the schema cannot say. Each is documented in docs/semantics.md. */
export const LIMITS = {
  /** Nesting depth of condition groups; the top-level group is depth 1. */
  maxGroupDepth: 5,
  /** Leaf conditions in one query, across all groups. */
  maxLeafConditions: 32,
  /** Lifetime when `expiresIn` is absent. */
  defaultLifetimeMs: 24 * HOUR,
  minLifetimeMs: 1 * MINUTE,
  maxLifetimeMs: 30 * DAY,
  /** Shortest period of an `llm` condition (spec 8). */
  minLlmPeriodMs: 1 * HOUR,
  /** Window of price statistics (change, high, low, volume). */
  minPricePeriodMs: 1 * MINUTE,
  maxPricePeriodMs: 30 * DAY,
  /** Period of a `cron` every condition. */
  minCronPeriodMs: 1 * MINUTE,
  /** Default confidence threshold of tweet, news and llm conditions. */
  defaultMinConfidence: 80,
  /** Below this, semantic matches are mostly noise: a warning. */
  lowConfidence: 50,
} as const;
