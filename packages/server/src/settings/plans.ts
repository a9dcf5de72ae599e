import { readFileSync } from 'node:fs';

/** What a plan allows a key: requests a minute, daily and monthly quotas (with overage), most active queries. */
export interface PlanLimits {
  requestsPerMinute: number;
  dailyRequestLimit: number;
  monthlyRequestLimit: number;
  /** Requests beyond the monthly quota before it refuses, when `allowOverage`. */
  allowOverage: boolean;
  maxOverage: number;
  /** Most queries a key runs at once (422 `too_many_active_queries` beyond). */
  maxActiveQueries: number;
  /** What `key-status` calls it. */
  tier: string;
}

/** The plans of every host: free and pro (an operator redefines them, or adds others, with EQL_PLANS_FILE). */
export const DEFAULT_PLANS: Readonly<Record<'free' | 'pro', PlanLimits> & Record<string, PlanLimits>> = {
  free: { requestsPerMinute: 60, dailyRequestLimit: 1_000, monthlyRequestLimit: 20_000, allowOverage: false, maxOverage: 0, maxActiveQueries: 100, tier: 'free' },
  pro: { requestsPerMinute: 120, dailyRequestLimit: 50_000, monthlyRequestLimit: 1_000_000, allowOverage: true, maxOverage: 100_000, maxActiveQueries: 2_000, tier: 'pro' },
};

/** A plan's name: what keys are created with and stored under. */
export const PLAN_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

const COUNTS = ['requestsPerMinute', 'dailyRequestLimit', 'monthlyRequestLimit', 'maxActiveQueries'] as const;
/** Large enough for "no limit" in practice, small enough to stay an exact integer in every sum. */
const MOST = 1e12;

/**
 * The plans of EQL_PLANS_FILE, over the default ones: a JSON object of plans by name, each with
 * `requestsPerMinute`, `dailyRequestLimit`, `monthlyRequestLimit` and `maxActiveQueries` (whole numbers
 * from 1 to 10^12: a large one is as good as none), optionally `allowOverage` and `maxOverage` (default
 * off) and `tier` (default the name). Every problem names the file, the plan and the field.
 */
export function readPlansFile(path: string): Record<string, PlanLimits> {
  const where = `EQL_PLANS_FILE (${path})`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`${where}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: not JSON (${(error as Error).message})`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${where}: must be a JSON object of plans by name, such as {"internal": {"requestsPerMinute": 6000, ...}}`);
  const plans: Record<string, PlanLimits> = { ...DEFAULT_PLANS };
  const problems: string[] = [];
  for (const [name, body] of Object.entries(parsed as Record<string, unknown>)) {
    if (!PLAN_NAME.test(name)) {
      problems.push(`plan "${name.slice(0, 40)}": a name is 1 to 32 lowercase letters, digits, "_" or "-", starting with a letter`);
      continue;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      problems.push(`plan "${name}": must be an object of limits`);
      continue;
    }
    const fields = body as Record<string, unknown>;
    const known = new Set<string>([...COUNTS, 'allowOverage', 'maxOverage', 'tier']);
    for (const field of Object.keys(fields)) if (!known.has(field)) problems.push(`plan "${name}": unknown field "${field.slice(0, 40)}" (the fields: ${[...known].join(', ')})`);
    const count = (field: string, min: number, fallback?: number): number => {
      const value = fields[field] ?? fallback;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > MOST) {
        problems.push(`plan "${name}": ${field} must be a whole number from ${min} to ${MOST}`);
        return 0;
      }
      return value;
    };
    const limits = {
      requestsPerMinute: count('requestsPerMinute', 1),
      dailyRequestLimit: count('dailyRequestLimit', 1),
      monthlyRequestLimit: count('monthlyRequestLimit', 1),
      maxActiveQueries: count('maxActiveQueries', 1),
      allowOverage: fields.allowOverage ?? false,
      maxOverage: count('maxOverage', 0, 0),
      tier: fields.tier ?? name,
    };
    if (typeof limits.allowOverage !== 'boolean') problems.push(`plan "${name}": allowOverage must be true or false`);
    if (typeof limits.tier !== 'string' || limits.tier.length === 0 || limits.tier.length > 64) problems.push(`plan "${name}": tier must be a name of 1 to 64 characters`);
    plans[name] = limits as PlanLimits;
  }
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
  return plans;
}

/** The limits of a key's plan: a plan no longer configured (removed from the file) counts as free. */
export function limitsOf(plans: Readonly<Record<string, PlanLimits>>, plan: string): PlanLimits {
  return plans[plan] ?? plans.free ?? DEFAULT_PLANS.free;
}
