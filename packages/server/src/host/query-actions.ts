import { transition } from '@eql/core';
import type { HostContext } from '../context.js';
import { ApiError, notFound } from '../http/errors.js';
import type { QueryRecord } from '../store/records.js';
import { pollView } from './query-service.js';

/**
 * What an owner can do to a stored query, shared by the API-key routes (spec 4.4) and the agent routes
 * of the payment model (spec 4.5). The owner is a key id (an API key, or the key row of an agent).
 */

/** The owner's query, or 404 (unknown, another owner's, or deleted). */
export async function ownQuery(context: HostContext, keyId: number, queryId: string): Promise<QueryRecord> {
  const record = await context.store.queryById(queryId);
  if (!record || record.keyId !== keyId || record.deletedAt !== null) throw notFound(`query ${queryId}`);
  return record;
}

/** Spec 2.6. */
export async function pollQuery(context: HostContext, keyId: number, queryId: string): Promise<Record<string, unknown>> {
  const record = await ownQuery(context, keyId, queryId);
  return pollView(context, record, await context.store.executionsOfQuery(queryId));
}

/** Spec 2.7 (cancel): 409 when the query is already terminal. */
export async function cancelQuery(context: HostContext, keyId: number, queryId: string): Promise<{ id: string; status: 'cancelled'; cancelledAt: string }> {
  const record = await ownQuery(context, keyId, queryId);
  const status = (await context.runner.inspect(queryId))?.status ?? record.status;
  const result = transition({ status, deleted: false }, { type: 'cancel' });
  if (!result.ok) throw new ApiError('query_not_active', result.message);
  const cancelledAt = new Date(context.now()).toISOString();
  // Stored first: a host that takes the query over meanwhile finds it cancelled.
  await context.store.setQueryStatus(queryId, 'cancelled', { cancelledAt });
  context.runner.cancel(queryId);
  context.hub.end(queryId, 'cancelled');
  return { id: queryId, status: 'cancelled', cancelledAt };
}

/** Spec 2.7 (delete): 409 while the query is active; a soft delete. */
export async function deleteQuery(context: HostContext, keyId: number, queryId: string): Promise<{ id: string; deletedAt: string }> {
  const record = await ownQuery(context, keyId, queryId);
  const status = (await context.runner.inspect(queryId))?.status ?? record.status;
  const result = transition({ status, deleted: false }, { type: 'delete' });
  if (!result.ok) throw new ApiError('query_still_active', result.message);
  const deletedAt = new Date(context.now()).toISOString();
  await context.store.softDeleteQuery(queryId, deletedAt);
  context.runner.remove(queryId);
  context.hub.end(queryId, 'deleted');
  return { id: queryId, deletedAt };
}

/** Spec 2.8: the LLM sessions of a query. */
export async function sessionsOfQuery(context: HostContext, keyId: number, queryId: string) {
  await ownQuery(context, keyId, queryId);
  const sessions = await context.store.sessionsOfQuery(queryId);
  return { queryId, sessions: sessions.map((session) => ({ sessionId: session.sessionId, status: session.status, executedAt: session.executedAt })) };
}

/** Spec 2.8: one LLM session of a query. */
export async function sessionOfQuery(context: HostContext, keyId: number, queryId: string, sessionId: string) {
  await ownQuery(context, keyId, queryId);
  const session = await context.store.sessionById(sessionId);
  if (!session || session.queryId !== queryId) throw notFound(`session ${sessionId}`);
  const { keyId: _keyId, ...detail } = session;
  return detail;
}
