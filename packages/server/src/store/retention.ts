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

/**
 * The indexes the retention job finds the oldest records of each kind by, a batch at a time (migration 10
 * of both stores: the same SQL); a key's folded ledger lines are one row, found and updated by its key.
 */
export const RETENTION_INDEXES_SQL = `
  CREATE INDEX notifications_time ON notifications (created_at);
  CREATE INDEX executions_finished ON executions (finished_at) WHERE finished_at IS NOT NULL;
  CREATE INDEX sessions_time ON sessions (executed_at);
  CREATE INDEX action_outbox_settled ON action_outbox (finished_at) WHERE status <> 'pending';
  CREATE INDEX validations_time ON validations (validated_at);
  CREATE INDEX ledger_time ON ledger (created_at) WHERE reason <> '${CARRIED_FORWARD}';
  CREATE UNIQUE INDEX ledger_carried ON ledger (key_id) WHERE reason = '${CARRIED_FORWARD}';
  CREATE INDEX chat_sessions_time ON chat_sessions (updated_at);
  CREATE INDEX queries_deleted ON queries (deleted_at) WHERE deleted_at IS NOT NULL;
`;

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
