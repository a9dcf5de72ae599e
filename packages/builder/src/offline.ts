/**
 * The offline builder: one turn of the conversation with the grammar alone. Reads the message (and,
 * when the previous turn asked a question, the message together with the one it answers), amends or
 * replaces the current query, adapts it to payment mode, and validates it with the core validator.
 * Only a query the validator accepts is ever returned.
 */
import { validate, type QueryRequest, type ValidationMode, type ValidationResult } from '@eql/core';
import { interpret } from './assemble/interpret.js';
import { compose, type Composed } from './compose/compose.js';
import { mainSymbol } from './compose/edits.js';
import { withoutTrades } from './payment.js';
import type { BuilderState } from './state.js';
import type { TurnFindings } from './turn-findings.js';
import type { ReadingWork } from './work.js';

/** One turn for the grammar: the message, the conversation so far, the mode and the instant. */
export interface OfflineTurn {
  message: string;
  state: BuilderState;
  mode: ValidationMode;
  now: number;
  /** The work budget of a reading, in steps per token (default `STEPS_PER_TOKEN`). */
  stepsPerToken?: number;
}

/** What the grammar made of a turn: a valid request, or questions, not-understood words and a partial reading. */
export interface OfflineOutcome extends TurnFindings {
  titleGiven: boolean;
  /** The message read this turn (with the one it answers, when combined). */
  readMessage: string;
  /** The message asked to start over: the current query is dropped. */
  reset: boolean;
  /** What reading cost (both readings, when the message was also read with the pending one). */
  work: ReadingWork;
}

const AFFIRMATION = /^\s*(yes|yep|yeah|yup|ok|okay|sure|go ahead|do it|looks good|sounds good|that'?s right|correct|fine|confirm(ed)?|perfect|great|use it|use that)\s*[.!]*\s*$/i;

/** Runs one turn with the grammar. Never throws. */
export function offlineTurn(turn: OfflineTurn): OfflineOutcome {
  const { state } = turn;
  if (AFFIRMATION.test(turn.message) && state.pending?.partial) {
    const validation = validate(state.pending.partial, { mode: turn.mode, now: turn.now });
    if (validation.valid) return { ...blank(turn.message), request: state.pending.partial, validation, kind: 'confirmed', titleGiven: state.titleGiven === true };
  }
  const alone = attempt(turn.message, turn);
  if (clean(alone) || state.pending === undefined || unread(alone)) return alone;
  const combined = attempt(`${state.pending.message}\n${turn.message}`, turn);
  const chosen = clean(combined) ? combined : alone;
  return { ...chosen, work: { ...chosen.work, steps: alone.work.steps + combined.work.steps } };
}

/** Whether the message was not read (past the token cap or the work budget). */
export function unread(outcome: OfflineOutcome): boolean {
  return outcome.work.tooLong || outcome.work.exhausted;
}

function blank(readMessage: string): OfflineOutcome {
  return { kind: 'none', titleGiven: false, questions: [], notes: [], unknown: [], refused: [], readMessage, reset: false, work: { tokens: 0, steps: 0, tooLong: false, exhausted: false } };
}

function clean(outcome: OfflineOutcome): boolean {
  return outcome.request !== undefined && outcome.questions.length === 0 && outcome.unknown.length === 0;
}

function attempt(message: string, turn: OfflineTurn): OfflineOutcome {
  const current = turn.state.query;
  const symbol = current ? mainSymbol(current.query.conditions, current.query.actions) : undefined;
  const reading = interpret(message, { now: turn.now, ...(symbol ? { symbol } : {}), ...(turn.stepsPerToken === undefined ? {} : { stepsPerToken: turn.stepsPerToken }) });
  if (reading.work.tooLong || reading.work.exhausted) return { ...blank(message), questions: reading.questions, work: reading.work };
  const composed = compose({ interpretation: reading, now: turn.now, ...(current ? { current } : {}), ...(turn.state.titleGiven ? { titleGiven: true } : {}) });
  const outcome: OfflineOutcome = { ...blank(message), kind: composed.kind, titleGiven: composed.titleGiven, questions: composed.questions, notes: composed.notes, unknown: composed.unknown, reset: composed.reset, work: reading.work };
  if (!composed.request) return outcome;
  const checked = check(composed, turn, outcome);
  if (!checked) return outcome;
  if (outcome.questions.length > 0 || outcome.unknown.length > 0) {
    outcome.partial = checked.request;
    return outcome;
  }
  outcome.request = checked.request;
  outcome.validation = checked.validation;
  return outcome;
}

/** Payment adaptation and validation; a refusal by the validator is kept to explain it. */
function check(composed: Composed, turn: OfflineTurn, outcome: OfflineOutcome): { request: QueryRequest; validation: ValidationResult } | undefined {
  let request = composed.request as QueryRequest;
  if (turn.mode === 'payment') {
    const adapted = withoutTrades(request);
    request = adapted.request;
    outcome.refused = adapted.refused;
  }
  if (outcome.refused.length === 0) outcome.notes.push(...composed.orderNotes);
  const validation = validate(request, { mode: turn.mode, now: turn.now });
  if (!validation.valid) {
    outcome.rejected = validation;
    return undefined;
  }
  return { request, validation };
}
