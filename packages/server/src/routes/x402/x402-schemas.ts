import { S } from '../schemas.js';

const errorResponse = { type: 'object', additionalProperties: true, properties: { success: { type: 'boolean' }, error: {} } } as const;
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, { ...errorResponse, description: `Error ${status}` }]));
const ok = (schema: { response: Record<string | number, unknown> }, ...statuses: number[]) => ({ ...Object.fromEntries(Object.entries(schema.response).filter(([status]) => Number(status) < 400)), ...errors(...statuses) });

/** Schemas of the agent routes of spec 4.5: the bodies and answers of their API-key twins (spec 4.4). */
export const X = {
  create: { summary: 'Create a query, paid up front (agent)', body: S.create.body, response: ok(S.create, 400, 402, 422) },
  validate: { summary: 'Validate a query in payment mode (agent, free)', body: S.validate.body, response: ok(S.validate, 400) },
  poll: { summary: 'Poll a query of this agent (free)', params: S.poll.params, response: ok(S.poll, 400, 404) },
  cancel: { summary: 'Cancel a query of this agent (free)', params: S.cancel.params, response: ok(S.cancel, 400, 404, 409) },
  sessions: { summary: 'LLM sessions of a query of this agent (free)', params: S.sessions.params, response: ok(S.sessions, 400, 404) },
  session: { summary: 'One LLM session (free)', params: S.session.params, response: ok(S.session, 400, 404) },
} as const;
