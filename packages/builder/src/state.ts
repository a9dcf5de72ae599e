/**
 * The state of a builder conversation, stored by the host per session between turns. Plain JSON:
 * the current query and what was pending a clarification. Read tolerantly: a stored state of an older
 * shape, or none, reads as a new conversation.
 */
import { isRecord, type QueryRequest } from '@eql/core';

/** A builder conversation between turns (stored by the host, plain JSON). */
export interface BuilderState {
  version: 1;
  /** The query of the conversation so far (always one the validator accepted). */
  query?: QueryRequest;
  /** Whether its title was written by the user (else a change of conditions renames it). */
  titleGiven?: boolean;
  /** A message that needed clarification; the answer is read together with it. */
  pending?: { message: string; partial?: QueryRequest };
  /** Turns so far. */
  turns: number;
}

/** The state to start a conversation with. */
export function emptyState(): BuilderState {
  return { version: 1, turns: 0 };
}

/** Reads a stored state; anything unusable gives an empty state. Never throws. */
export function readState(stored: unknown): BuilderState {
  if (!isRecord(stored) || stored.version !== 1) return emptyState();
  const state = emptyState();
  if (typeof stored.turns === 'number' && Number.isInteger(stored.turns) && stored.turns >= 0) state.turns = stored.turns;
  if (isRequest(stored.query)) state.query = structuredClone(stored.query);
  if (stored.titleGiven === true) state.titleGiven = true;
  const pending = stored.pending;
  if (isRecord(pending) && typeof pending.message === 'string') {
    state.pending = { message: pending.message.slice(0, 4000) };
    if (isRequest(pending.partial)) state.pending.partial = structuredClone(pending.partial);
  }
  return state;
}

function isRequest(value: unknown): value is QueryRequest {
  return isRecord(value) && isRecord(value.query) && isRecord(value.query.conditions) && Array.isArray(value.query.actions);
}
