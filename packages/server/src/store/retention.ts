/**
 * What the retention job prunes from a host store, one kind per `EQL_RETENTION_*` setting
 * (docs/operations.md, "Retention"). Each kind says which records count as older than a cutoff:
 *
 * - `notifications`: created before it;
 * - `executions`: finished before it (running ones are kept), and LLM sessions run before it;
 * - `outbox`: settled before it (a `pending` entry is in flight or in doubt: kept until settled);
 * - `validations`: validations and exchange listings made before it;
 * - `ledger`: credit ledger lines written before it, folded into one `carried_forward` line per key
 *   (so a key's total stays exact), and daily request counts of days before it;
 * - `chat`: chat sessions last used before it, with their messages;
 * - `deletedQueries`: queries deleted before it, with their executions, sessions, notifications and outbox entries.
 */
export const RETENTION_KINDS = ['notifications', 'executions', 'outbox', 'validations', 'ledger', 'chat', 'deletedQueries'] as const;

/** One kind of record the retention job prunes (see {@link RETENTION_KINDS}). */
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** The reason of the ledger line that holds what retention folded of a key's older lines. */
export const CARRIED_FORWARD = 'carried_forward';

/** How long each kind is kept, in ms (0: for ever), and how the job runs. */
export interface RetentionPolicy {
  notifications: number;
  executions: number;
  outbox: number;
  validations: number;
  ledger: number;
  chat: number;
  deletedQueries: number;
  /** The price history's; undefined: each history's own default (60 days of SQLite minutes, 7 days of PostgreSQL ticks). */
  prices?: number;
  /** How often the job runs (ms). */
  intervalMs: number;
  /** Rows deleted per transaction. */
  batch: number;
}

const DAY = 86_400_000;

/** The defaults of `EQL_RETENTION_*` (host-settings.ts shows the same). */
export const DEFAULT_RETENTION: RetentionPolicy = {
  notifications: 30 * DAY,
  executions: 90 * DAY,
  outbox: 7 * DAY,
  validations: 2 * DAY,
  ledger: 400 * DAY,
  chat: 30 * DAY,
  deletedQueries: 30 * DAY,
  intervalMs: 3_600_000,
  batch: 1000,
};
