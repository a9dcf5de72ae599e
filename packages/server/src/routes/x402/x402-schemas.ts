import { errorResponses as errors } from '../error-schemas.js';
import { S } from '../schemas.js';

const ok = (schema: { response: Record<string | number, unknown> }, ...statuses: number[]) => ({ ...Object.fromEntries(Object.entries(schema.response).filter(([status]) => Number(status) < 400)), ...errors(...statuses) });

/**
 * The payment-model twin of an API-key route's schema: its parameters and answers, with 402 in place of
 * 401 (there is no key to refuse) among its errors.
 */
export function paidTwin<T extends { response: Record<string | number, unknown> }>(schema: T): T {
  const statuses = Object.keys(schema.response).map(Number).filter((status) => status >= 400 && status !== 401);
  return { ...schema, response: ok(schema, ...[...statuses, 402].sort((a, b) => a - b)) };
}

/** Schemas of the agent routes of spec 4.5: the bodies and answers of their API-key twins (spec 4.4). */
export const X = {
  create: { summary: 'Create a query, paid up front (agent); validate it first', body: S.create.body, response: ok(S.create, 400, 402, 409, 422) },
  validate: { summary: 'Validate a query in payment mode (agent, free)', body: S.validate.body, response: ok(S.validate, 400) },
  poll: { summary: 'Poll a query of this agent (free)', params: S.poll.params, response: ok(S.poll, 400, 404) },
  cancel: { summary: 'Cancel a query of this agent (free)', params: S.cancel.params, response: ok(S.cancel, 400, 404, 409) },
  sessions: { summary: 'LLM sessions of a query of this agent (free)', params: S.sessions.params, response: ok(S.sessions, 400, 404) },
  session: { summary: 'One LLM session (free)', params: S.session.params, response: ok(S.session, 400, 404) },
} as const;
