import type { ConditionState, ExecutionRecord, Notification, RuntimeState } from './interfaces.js';

/**
 * What the engine tells its embedder, in order. `at` is the instant of the observation (or timer) that
 * caused the event, in epoch ms; `receivedAt` is the engine's clock when it differs (a live observation
 * stamped by its venue arrives a little after it was made).
 */
export type EngineEvent = EngineEventBody & { receivedAt?: number };

type EngineEventBody =
  | { type: 'query-added'; queryId: string; at: number }
  /** After an update that changed any condition of the query: its states and whether it would fire. */
  | { type: 'evaluation'; queryId: string; at: number; wouldTriggerNow: boolean; conditionStates: ConditionState[] }
  | { type: 'condition-changed'; queryId: string; at: number; path: string; holds: boolean }
  | { type: 'trigger'; queryId: string; at: number; triggerIndex: number; final: boolean; conditionStates: ConditionState[] }
  | { type: 'execution-started'; queryId: string; at: number; execution: ExecutionRecord }
  | { type: 'execution-succeeded'; queryId: string; at: number; execution: ExecutionRecord }
  | { type: 'execution-failed'; queryId: string; at: number; execution: ExecutionRecord }
  | { type: 'status-changed'; queryId: string; at: number; status: RuntimeState['status']; previous: RuntimeState['status'] }
  | { type: 'expired'; queryId: string; at: number }
  | { type: 'notification'; queryId: string; at: number; notification: Notification }
  /** Something kept a query from being evaluated as written (no data source, an LLM call failed, ...). */
  | { type: 'problem'; queryId: string; at: number; code: string; message: string };

/** The `type` of an engine event, such as `trigger` or `execution-failed`. */
export type EngineEventType = EngineEvent['type'];

/** Every engine event type, in the order of {@link EngineEvent}'s members. */
export const ENGINE_EVENT_TYPES = [
  'query-added',
  'evaluation',
  'condition-changed',
  'trigger',
  'execution-started',
  'execution-succeeded',
  'execution-failed',
  'status-changed',
  'expired',
  'notification',
  'problem',
] as const satisfies readonly EngineEventType[];

// The list names every type: a type added to EngineEvent and not here fails to compile.
type Unlisted = Exclude<EngineEventType, (typeof ENGINE_EVENT_TYPES)[number]>;
const everyTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyTypeListed;

/** The engine events of the given types. */
export type EngineEventOf<T extends EngineEventType> = Extract<EngineEvent, { type: T }>;

