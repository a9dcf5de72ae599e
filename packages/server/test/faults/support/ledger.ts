import pg from 'pg';

/**
 * What a run left behind, read from a store's tables and a webhook receiver, keyed so that two runs
 * of the same queries over the same stream compare whatever ids their stores gave: a query by its
 * title, a trigger by (title, index), a step's effect by (title, index, step) and, for a notification,
 * the observation it fired on.
 */
export interface Ledger {
  /** `title|triggerIndex|stepId|observedAt` of every stored notification (repeats kept). */
  notifications: string[];
  /** `title|triggerIndex|stepId` of every execution, with its status. */
  executions: { key: string; status: string }[];
  /** Each query's trigger count in its stored runtime state. */
  triggerCounts: Map<string, number>;
}

/** A webhook delivery as the receiver saw it. */
export interface Delivery {
  /** `title|triggerIndex`, from the body. */
  key: string;
  webhookId: string;
}

interface QueryRow {
  id: string;
  request: string;
  runtime: string | null;
}

/** The title of a stored query (its request's `title`). */
function titleOf(request: string): string {
  return (JSON.parse(request) as { title?: string }).title ?? '?';
}

/** Reads a store's ledger (`schema` qualifies the tables: the reference shares a server with other tests). */
export async function readLedger(url: string, schema = 'public'): Promise<Ledger> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const queries = (await client.query<QueryRow>(`SELECT id, request, runtime FROM ${schema}.queries`)).rows;
    const titles = new Map(queries.map((row) => [row.id, titleOf(row.request)]));
    const triggerCounts = new Map(queries.map((row) => [titleOf(row.request), row.runtime ? ((JSON.parse(row.runtime) as { triggerCount?: number }).triggerCount ?? 0) : 0]));
    const notifications = (await client.query<{ query_id: string; trigger_index: string | null; step_id: string | null; body: string }>(`SELECT query_id, trigger_index, step_id, body FROM ${schema}.notifications`)).rows.map((row) => {
      let observedAt = '?';
      try {
        observedAt = String((JSON.parse(row.body) as { data?: { observedAt?: string } }).data?.observedAt ?? '?');
      } catch {
        // A body that is not JSON keeps '?': it still counts, and shows as extra or missing.
      }
      return `${titles.get(row.query_id) ?? row.query_id}|${row.trigger_index}|${row.step_id}|${observedAt}`;
    });
    const executions = (await client.query<{ query_id: string; trigger_index: string; step_id: string; status: string }>(`SELECT query_id, trigger_index, step_id, status FROM ${schema}.executions`)).rows.map((row) => ({
      key: `${titles.get(row.query_id) ?? row.query_id}|${row.trigger_index}|${row.step_id}`,
      status: row.status,
    }));
    return { notifications, executions, triggerCounts };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Each query's trigger count now (for the "never backwards" watch); undefined while the store does not answer. */
export async function readTriggerCounts(url: string): Promise<Map<string, number> | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const rows = (await client.query<QueryRow>('SELECT id, request, runtime FROM queries')).rows;
    return new Map(rows.map((row) => [titleOf(row.request), row.runtime ? ((JSON.parse(row.runtime) as { triggerCount?: number }).triggerCount ?? 0) : 0]));
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}
