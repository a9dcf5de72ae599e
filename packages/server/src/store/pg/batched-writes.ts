import type pg from 'pg';
import { type Fence, FencedWriteError } from '../fence.js';
import { checkFence } from './pg-fence.js';
import { prepared } from './prepared-statement.js';
import type { ItemOutcome } from './write-batcher.js';

/**
 * The fenced writes of a partition's engine, many rows in one statement (group commit, issue 47): each
 * function runs inside the batch's transaction, checks the fence once, last, and answers one outcome per
 * item, as the write would have answered alone. Rows travel as one JSON array of arrays (`$1`), read
 * back with their types by {@link rowsOf}; `WITH ORDINALITY` keeps the callers' order.
 */

/** `SELECT` list reading `$1` (a JSON array of arrays) as rows of the given column types, with their position `ord`. */
function rowsOf(types: readonly string[]): string {
  const columns = types.map((type, index) => `(v->>${index})::${type}`).join(', ');
  return `SELECT ${columns} FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(v, ord) ORDER BY ord`;
}

const ok = <O>(value: O): ItemOutcome<O> => ({ value });

/** One execution row: the values in the order of `EXECUTION_COLUMNS`. */
export type ExecutionRow = unknown[];

export const EXECUTION_COLUMNS = 'id, key_id, query_id, step_id, type, status, trigger_index, created_at, finished_at, attempts, result, error_code, error_message, written_by, written_epoch';
/** What a save of an execution already stored replaces (one at a time or in a batch). */
export const EXECUTION_UPSERT = `ON CONFLICT (id) DO UPDATE SET status = excluded.status, finished_at = excluded.finished_at, attempts = excluded.attempts,
  result = excluded.result, error_code = excluded.error_code, error_message = excluded.error_message, written_by = excluded.written_by, written_epoch = excluded.written_epoch`;
const EXECUTION_TYPES = ['text', 'bigint', 'text', 'text', 'text', 'text', 'bigint', 'text', 'text', 'bigint', 'text', 'text', 'text', 'text', 'bigint'];
const insertExecutions = prepared('save_executions', `INSERT INTO executions (${EXECUTION_COLUMNS}) ${rowsOf(EXECUTION_TYPES)} ${EXECUTION_UPSERT}`);

/** Saves executions (distinct ids), replacing earlier records of the same ids. */
export async function saveExecutions(client: pg.ClientBase, rows: ExecutionRow[], fence: Fence): Promise<Array<ItemOutcome<void>>> {
  await client.query(insertExecutions([JSON.stringify(rows)]));
  await checkFence(client, fence, `${rows.length} execution(s)`);
  return rows.map(() => ok(undefined));
}

/** One outbox row: the values in the order of {@link OUTBOX_COLUMNS}. */
export type OutboxRow = unknown[];

export const OUTBOX_COLUMNS = 'idempotency_key, key_id, query_id, trigger_index, step_id, type, execution_id, status, created_at, finished_at, outcome, written_by, written_epoch';
/** What a save of an outbox entry already stored replaces (one at a time or in a batch). */
export const OUTBOX_UPSERT = `ON CONFLICT (idempotency_key) DO UPDATE SET execution_id = excluded.execution_id, status = excluded.status, finished_at = excluded.finished_at, outcome = excluded.outcome,
  written_by = excluded.written_by, written_epoch = excluded.written_epoch`;
const OUTBOX_TYPES = ['text', 'bigint', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint'];
const upsertOutboxes = prepared('save_outboxes', `INSERT INTO action_outbox (${OUTBOX_COLUMNS}) ${rowsOf(OUTBOX_TYPES)} ${OUTBOX_UPSERT}`);
const insertNewOutboxes = prepared(
  'claim_outboxes',
  `INSERT INTO action_outbox (${OUTBOX_COLUMNS}) ${rowsOf(OUTBOX_TYPES)} ON CONFLICT (idempotency_key) DO NOTHING RETURNING idempotency_key`,
);

/** Writes outbox entries (distinct keys), replacing the ones with their keys. */
export async function saveOutboxes(client: pg.ClientBase, rows: OutboxRow[], fence: Fence): Promise<Array<ItemOutcome<void>>> {
  await client.query(upsertOutboxes([JSON.stringify(rows)]));
  await checkFence(client, fence, `${rows.length} outbox entr(ies)`);
  return rows.map(() => ok(undefined));
}

/** Claims outbox entries (distinct keys): each answers whether this batch wrote it (its key had no entry). */
export async function claimOutboxes(client: pg.ClientBase, rows: OutboxRow[], fence: Fence): Promise<Array<ItemOutcome<boolean>>> {
  const { rows: claimed } = await client.query<{ idempotency_key: string }>(insertNewOutboxes([JSON.stringify(rows)]));
  await checkFence(client, fence, `the claims of ${rows.length} outbox entr(ies)`);
  const won = new Set(claimed.map((row) => row.idempotency_key));
  return rows.map((row) => ok(won.has(String(row[0]))));
}

/** A runtime state to save: the query, its state as stored, its status, and the version of the save. */
export interface RuntimeRow {
  id: string;
  runtime: string;
  status: string;
  version: number;
}

const updateRuntimes = prepared(
  'save_runtimes',
  `WITH input AS (SELECT v->>0 AS id, v->>1 AS runtime, v->>2 AS status, (v->>3)::bigint AS version FROM jsonb_array_elements($1::jsonb) AS e(v)),
     updated AS (
       UPDATE queries AS q SET runtime = input.runtime, status = CASE WHEN q.status = 'cancelled' THEN q.status ELSE input.status END,
         runtime_written_by = $2, runtime_epoch = $3::bigint, runtime_version = input.version
       FROM input WHERE q.id = input.id AND (q.runtime_epoch IS NULL OR (q.runtime_epoch, q.runtime_version) < ($3::bigint, input.version))
       RETURNING q.id
     )
     SELECT input.id, updated.id IS NOT NULL AS written, EXISTS (SELECT 1 FROM queries AS known WHERE known.id = input.id) AS known
       FROM input LEFT JOIN updated ON updated.id = input.id`,
);

/**
 * Saves runtime states (distinct queries). A state only moves forward: a save older than the stored
 * version is refused (that item alone fails with a {@link FencedWriteError}); a query that is gone is
 * left as it is.
 */
export async function saveRuntimes(client: pg.ClientBase, items: RuntimeRow[], fence: Fence): Promise<Array<ItemOutcome<void>>> {
  const { rows } = await client.query<{ id: string; written: boolean; known: boolean }>(
    updateRuntimes([JSON.stringify(items.map((item) => [item.id, item.runtime, item.status, item.version])), fence.nodeId, fence.epoch]),
  );
  await checkFence(client, fence, `the runtime states of ${items.length} queries`);
  const refused = new Set(rows.filter((row) => !row.written && row.known).map((row) => row.id));
  return items.map((item) => (refused.has(item.id) ? { error: new FencedWriteError(fence, `the runtime state of query ${item.id} (a newer state is stored)`) } : ok(undefined)));
}
