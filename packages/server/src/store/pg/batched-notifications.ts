import type pg from 'pg';
import type { NotificationDraft } from '@eql/core';
import type { StoredNotification } from '../records.js';
import { notificationOf, type Row } from '../rows.js';
import { type Fence, FencedWriteError, observationOf, sameObservation, StaleNotificationError } from '../fence.js';
import { prepared } from './prepared-statement.js';
import type { ItemOutcome } from './write-batcher.js';

/** A notification to add: its draft as stored (`body`, stored-text.ts), its step when it has one, and the lease it is written under. */
export interface NotificationItem {
  draft: NotificationDraft;
  body: string;
  step: { stepId: string; triggerIndex: number } | undefined;
  fence: Fence | undefined;
}

const insertNotifications = prepared(
  'add_notifications',
  `INSERT INTO notifications (key_id, query_id, step_id, trigger_index, body, created_at, written_by, written_epoch)
   SELECT $2::bigint, v->>0, v->>1, (v->>2)::bigint, v->>3, v->>4, v->>5, (v->>6)::bigint FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(v, ord) ORDER BY ord
   RETURNING id`,
);

const earliestOfSteps = prepared(
  'earliest_notifications_of_steps',
  `SELECT DISTINCT ON (n.query_id, n.trigger_index, n.step_id) n.id, n.key_id, n.query_id, n.trigger_index, n.step_id, n.body
     FROM notifications AS n JOIN (SELECT v->>0 AS query_id, (v->>1)::bigint AS trigger_index, v->>2 AS step_id FROM jsonb_array_elements($1::jsonb) AS e(v)) AS s
       ON n.query_id = s.query_id AND n.trigger_index = s.trigger_index AND n.step_id = s.step_id
    ORDER BY n.query_id, n.trigger_index, n.step_id, n.id`,
);

const leasesHeld = prepared(
  'leases_held',
  `SELECT l.partition, l.epoch, l.node_id FROM partition_leases AS l
     JOIN (SELECT (v->>0)::int AS partition, (v->>1)::bigint AS epoch, v->>2 AS node_id FROM jsonb_array_elements($1::jsonb) AS e(v)) AS f
       ON l.partition = f.partition AND l.epoch = f.epoch AND l.node_id = f.node_id
    ORDER BY l.partition FOR SHARE OF l`,
);

/** The key of a trigger's step, for matching. */
const stepKey = (queryId: string, step: { stepId: string; triggerIndex: number }) => `${queryId}\u0000${step.triggerIndex}\u0000${step.stepId}`;

const fenceKey = (fence: Fence) => `${fence.partition}:${fence.epoch}:${fence.nodeId}`;

/**
 * Adds one key's notifications in one transaction (group commit, issue 47), as each would be added
 * alone in the order given: under the key's ordering lock (`lockSql`), ids handed out in that order; a
 * notification of a trigger's step stored before (or earlier in the batch) is answered instead of a new
 * one when its observation is the same, and refused as stale when not; the fence of every lease the
 * items were written under is checked last. When a fence no longer holds, the batch is rolled back and
 * written again without that lease's items, which fail with a {@link FencedWriteError}.
 */
export async function addNotifications(
  inTransaction: <T>(work: (client: pg.ClientBase) => Promise<T>) => Promise<T>,
  lockSql: string,
  keyId: number,
  items: readonly NotificationItem[],
): Promise<Array<ItemOutcome<StoredNotification>>> {
  const outcomes: Array<ItemOutcome<StoredNotification> | undefined> = items.map(() => undefined);
  const fenced = new Set<string>();
  for (;;) {
    const live = items.map((item, index) => ({ item, index })).filter(({ item }) => !(item.fence && fenced.has(fenceKey(item.fence))));
    if (live.length === 0) break;
    const result = await inTransaction(async (client) => {
      await client.query({ name: 'eql_notification_key_lock', text: lockSql, values: [keyId] });
      const answers = await writeInOrder(client, keyId, live.map(({ item }) => item));
      const stale = await staleFences(client, live.map(({ item }) => item));
      if (stale.length > 0) throw new StaleFences(stale);
      return answers;
    }).catch((error: unknown) => {
      if (error instanceof StaleFences) return error;
      throw error;
    });
    if (result instanceof StaleFences) {
      for (const fence of result.fences) fenced.add(fenceKey(fence));
      continue;
    }
    live.forEach(({ index }, position) => (outcomes[index] = result[position]));
    break;
  }
  return items.map((item, index) => outcomes[index] ?? { error: new FencedWriteError(item.fence!, `a notification of query ${item.draft.data.queryId}`) });
}

/** Thrown inside the transaction to roll it back when fences no longer hold. */
class StaleFences extends Error {
  constructor(readonly fences: Fence[]) {
    super('stale fences');
  }
}

/** The outcomes of the items, written in order inside the transaction. */
async function writeInOrder(client: pg.ClientBase, keyId: number, items: readonly NotificationItem[]): Promise<Array<ItemOutcome<StoredNotification>>> {
  const stepped = items.filter((item) => item.step !== undefined);
  // The earliest notification stored for each trigger's step of the batch (a query's notifications are all its key's: the lock covers this read).
  const earlier = new Map<string, StoredNotification>();
  if (stepped.length > 0) {
    const { rows } = await client.query<Row>(earliestOfSteps([JSON.stringify(stepped.map((item) => [item.draft.data.queryId, item.step!.triggerIndex, item.step!.stepId]))]));
    for (const row of rows) earlier.set(stepKey(String(row.query_id), { triggerIndex: Number(row.trigger_index), stepId: String(row.step_id) }), notificationOf(row));
  }
  // What each item answers: an earlier notification (stored, or the first of the batch for the same step), a refusal, or a new row.
  const outcomes: Array<ItemOutcome<StoredNotification> | { sameAs: number } | { insert: number }> = [];
  const firstInBatch = new Map<string, number>();
  const inserts: NotificationItem[] = [];
  items.forEach((item, index) => {
    const given = (JSON.parse(item.body) as NotificationDraft).data;
    const key = item.step ? stepKey(item.draft.data.queryId, item.step) : undefined;
    const stored = key === undefined ? undefined : earlier.get(key);
    const first = key === undefined ? undefined : firstInBatch.get(key);
    const before = stored?.data ?? (first === undefined ? undefined : (JSON.parse(items[first]!.body) as NotificationDraft).data);
    if (before !== undefined && !sameObservation(before, given)) {
      outcomes.push({ error: new StaleNotificationError(item.draft.data.queryId, item.step!.triggerIndex, item.step!.stepId, observationOf(before), observationOf(given)) });
    } else if (stored) outcomes.push({ value: stored });
    else if (first !== undefined) outcomes.push({ sameAs: first });
    else {
      if (key !== undefined) firstInBatch.set(key, index);
      outcomes.push({ insert: inserts.length });
      inserts.push(item);
    }
  });
  let ids: number[] = [];
  if (inserts.length > 0) {
    // Ids come from the identity in the order rows are inserted (`ORDER BY ord`): sorted, they are the items' in order.
    const { rows } = await client.query<{ id: string }>(
      insertNotifications([
        JSON.stringify(inserts.map((item) => [item.draft.data.queryId, item.step?.stepId ?? null, item.step?.triggerIndex ?? null, item.body, item.draft.createdAt, item.fence?.nodeId ?? null, item.fence?.epoch ?? null])),
        keyId,
      ]),
    );
    ids = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }
  const created = (position: number): StoredNotification => ({ ...(JSON.parse(inserts[position]!.body) as NotificationDraft), id: ids[position]!, keyId });
  const resolved: Array<ItemOutcome<StoredNotification>> = [];
  for (const outcome of outcomes) {
    if ('insert' in outcome) resolved.push({ value: created(outcome.insert) });
    else if ('sameAs' in outcome) resolved.push(resolved[outcome.sameAs]!);
    else resolved.push(outcome);
  }
  return resolved;
}

/** The fences of the items that no longer hold; the rows of those that do are share-locked until the commit (pg-fence.ts). */
async function staleFences(client: pg.ClientBase, items: readonly NotificationItem[]): Promise<Fence[]> {
  const fences = new Map<string, Fence>();
  for (const item of items) if (item.fence) fences.set(fenceKey(item.fence), item.fence);
  if (fences.size === 0) return [];
  const wanted = [...fences.values()].sort((a, b) => a.partition - b.partition);
  const { rows } = await client.query<{ partition: number; epoch: string; node_id: string }>(leasesHeld([JSON.stringify(wanted.map((fence) => [fence.partition, fence.epoch, fence.nodeId]))]));
  const holding = new Set(rows.map((row) => `${row.partition}:${Number(row.epoch)}:${row.node_id}`));
  return wanted.filter((fence) => !holding.has(fenceKey(fence)));
}
