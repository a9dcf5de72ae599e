/**
 * Spec 3: the life of a query as a pure transition function. `active` is the only live status;
 * `triggered`, `expired`, `cancelled` and `failed` are terminal and no event moves a query out of
 * them. Deletion is soft: a terminal query gets `deleted`, keeps its status, and is gone from view.
 */

/** Every status a query can have; `active` is the only live one. */
export const QUERY_STATUSES = ['active', 'triggered', 'expired', 'cancelled', 'failed'] as const;
/** The status of a query: `active`, or one of the terminal statuses. */
export type QueryStatus = (typeof QUERY_STATUSES)[number];
/** The statuses no event moves a query out of: triggered, expired, cancelled and failed. */
export const TERMINAL_STATUSES: readonly QueryStatus[] = ['triggered', 'expired', 'cancelled', 'failed'];

/** Whether a status is terminal (anything but `active`). */
export function isTerminal(status: QueryStatus): boolean {
  return status !== 'active';
}

/** What the lifecycle tracks of a query: its status, and whether it was (softly) deleted. */
export interface LifecycleState {
  status: QueryStatus;
  deleted: boolean;
}

/** Something that happens to a query, sent by the client or by the engine. */
export type LifecycleEvent =
  /** Client: POST …/cancel. */
  | { type: 'cancel' }
  /** Client: DELETE …/{queryId}. */
  | { type: 'delete' }
  /** Engine: the conditions held and the actions ran. `final` is false while a repeat policy re-arms it. */
  | { type: 'trigger'; final: boolean }
  /** Engine: expiresIn elapsed before a (final) trigger. */
  | { type: 'expire' }
  /** Engine: an action failed. */
  | { type: 'fail' };

/** Why an event does not apply in a state, with the HTTP status and error code a host answers with. */
export type TransitionRefusal = {
  ok: false;
  /** The HTTP status a host answers with. */
  httpStatus: 404 | 409;
  code: 'query-not-found' | 'query-not-active' | 'query-still-active';
  message: string;
};

/** The result of {@link transition}: the new state, or a refusal. */
export type Transition = { ok: true; state: LifecycleState } | TransitionRefusal;

/** The state of a query as create (or a draft's convert) leaves it. */
export const CREATED: LifecycleState = Object.freeze({ status: 'active', deleted: false });

/**
 * Applies an event to a query's state (spec 3): the state it leads to, or why it is refused (a deleted query is
 * 404; an event the status does not allow is 409).
 */
export function transition(state: LifecycleState, event: LifecycleEvent): Transition {
  if (state.deleted) {
    return { ok: false, httpStatus: 404, code: 'query-not-found', message: 'the query was deleted' };
  }
  const active = state.status === 'active';
  switch (event.type) {
    case 'cancel':
      return active
        ? { ok: true, state: { status: 'cancelled', deleted: false } }
        : refuse('query-not-active', `the query is ${state.status}; only an active query can be cancelled`);
    case 'delete':
      return active
        ? refuse('query-still-active', 'the query is active; cancel it before deleting it')
        : { ok: true, state: { status: state.status, deleted: true } };
    case 'trigger':
      if (!active) return refuse('query-not-active', `the query is ${state.status}; only an active query can trigger`);
      return { ok: true, state: { status: event.final ? 'triggered' : 'active', deleted: false } };
    case 'expire':
      return active
        ? { ok: true, state: { status: 'expired', deleted: false } }
        : refuse('query-not-active', `the query is ${state.status}; only an active query can expire`);
    case 'fail':
      return active
        ? { ok: true, state: { status: 'failed', deleted: false } }
        : refuse('query-not-active', `the query is ${state.status}; only an active query can fail`);
  }
}

function refuse(code: 'query-not-active' | 'query-still-active', message: string): TransitionRefusal {
  return { ok: false, httpStatus: 409, code, message };
}
