/**
 * The AI query builder behind `POST /v2/auto/chat` and `/x402/v2/auto/chat`: one reply per turn, in
 * Markdown, with the query request in a ```json block that passes the validator. With a model it
 * drafts, validates and repairs (the grammar's reading as a hint), falling back to the grammar when
 * the model fails; without one it uses the offline grammar. The conversation lives in `state`,
 * which the host stores per session and hands back on the next turn.
 */
import type { QueryRequest, ValidationMode, ValidationResult } from '@eql/core';
import type { ChatMessage, ChatModel, Speed } from '@eql/llm';
import { renderReply, type ReplyContent } from './markdown.js';
import { draftWithModel } from './model/draft-loop.js';
import { offlineTurn, unread, type OfflineOutcome } from './offline.js';
import { readState, type BuilderState } from './state.js';
import type { ReadingWork } from './work.js';

/** How a builder is made: the mode of its route, and optionally a model and a clock. */
export interface QueryBuilderOptions {
  /** A chat model; without one the offline grammar answers. */
  model?: ChatModel;
  /** `api-key` (`/v2/auto/chat`) or `payment` (`/x402/v2/auto/chat`: no trade actions). */
  mode: ValidationMode;
  /** The clock (epoch ms); schedules and cron checks are computed from it. */
  now?: () => number;
  /** Repairs the model may make after its first draft (default 2). */
  maxRepairs?: number;
  /** The work budget of reading a message, in steps per token (default `STEPS_PER_TOKEN`). */
  stepsPerToken?: number;
}

/** One message of a session, with what the host stored for it. */
export interface BuilderTurn {
  message: string;
  /** Model speed for this turn (default fast). */
  speed?: Speed;
  /** Earlier messages of the session, oldest first (given to the model). */
  history?: readonly ChatMessage[];
  /** The `state` of the previous reply, as stored by the host (anything else starts afresh). */
  state?: unknown;
}

/** The answer of a turn. */
export interface BuilderReply {
  /** The reply: explanation, the query in a ```json block, warnings; or a question. */
  markdown: string;
  /** The query request of the reply, when there is one (always valid in the builder's mode). */
  query?: QueryRequest;
  validation?: ValidationResult;
  /** To store for the session and pass back with the next turn (plain JSON). */
  state: BuilderState;
  /** Whether the model wrote the reply: the query it drafted, or its clarifying question. */
  usedModel: boolean;
  /**
   * What reading the message cost. A message of more tokens than `MAX_MESSAGE_TOKENS`, or whose
   * reading went past its budget, is not read (nor sent to the model): the reply says so.
   */
  work: ReadingWork;
}

/** The builder. One instance serves every session of a mode; it keeps nothing between calls. */
export class QueryBuilder {
  private readonly model: ChatModel | undefined;
  private readonly mode: ValidationMode;
  private readonly now: () => number;
  private readonly maxRepairs: number;
  private readonly stepsPerToken: number | undefined;

  constructor(options: QueryBuilderOptions) {
    this.model = options.model;
    this.mode = options.mode;
    this.now = options.now ?? Date.now;
    this.maxRepairs = options.maxRepairs ?? 2;
    this.stepsPerToken = options.stepsPerToken;
  }

  /** Answers one turn. Never rejects: model failures fall back to the grammar. */
  async reply(turn: BuilderTurn): Promise<BuilderReply> {
    const state = readState(turn.state);
    const message = typeof turn.message === 'string' ? turn.message : '';
    const now = this.now();
    const offline = offlineTurn({ message, state, mode: this.mode, now, ...(this.stepsPerToken === undefined ? {} : { stepsPerToken: this.stepsPerToken }) });
    let content = this.offlineContent(offline, 'grammar');
    let usedModel = false;
    // A "yes" to a pending reading, or a bare "start over", is the grammar's to answer.
    // A message not read for its size is not the model's either: the reply asks for a shorter one.
    const forModel = message.trim() !== '' && offline.kind !== 'confirmed' && !unread(offline) && !(offline.reset && offline.request === undefined && offline.partial === undefined);
    if (this.model && forModel) {
      const current = offline.reset ? undefined : state.query;
      const hint = offline.request ?? offline.partial;
      const draft = await draftWithModel({
        model: this.model,
        message,
        speed: turn.speed ?? 'fast',
        history: Array.isArray(turn.history) ? turn.history : [],
        mode: this.mode,
        now,
        maxRepairs: this.maxRepairs,
        hint: { unknown: offline.unknown, questions: offline.questions, ...(hint ? { request: hint } : {}) },
        ...(current ? { current } : {}),
      });
      if (draft.ok) {
        usedModel = true;
        content = { mode: this.mode, request: draft.request, validation: draft.validation, kind: current ? 'amended' : 'new', questions: [], notes: [], unknown: [], refused: draft.refused, author: 'model' };
      } else if ('question' in draft) {
        usedModel = true;
        content = { mode: this.mode, kind: 'none', questions: [], notes: [], unknown: [], refused: [], author: 'model', modelQuestion: draft.question };
      } else {
        content = { ...this.offlineContent(offline, 'fallback'), fallbackReason: draft.reason };
      }
    }
    const next = nextState(state, offline, content);
    const reply: BuilderReply = { markdown: renderReply(content), state: next, usedModel, work: offline.work };
    if (content.request && content.validation) {
      reply.query = content.request;
      reply.validation = content.validation;
    }
    return reply;
  }

  private offlineContent(outcome: OfflineOutcome, author: 'grammar' | 'fallback'): ReplyContent {
    const content: ReplyContent = { mode: this.mode, kind: outcome.kind, questions: outcome.questions, notes: outcome.notes, unknown: outcome.unknown, refused: outcome.refused, author };
    if (outcome.request && outcome.validation) {
      content.request = outcome.request;
      content.validation = outcome.validation;
    }
    if (outcome.partial) content.partial = outcome.partial;
    if (outcome.rejected) content.rejected = outcome.rejected;
    if (outcome.request === undefined && outcome.questions.length === 0 && outcome.unknown.length === 0 && !outcome.rejected && outcome.readMessage.trim() === '') {
      content.questions = ['What should the query watch, and what should it do? For example "alert me when BTC is above 70k".'];
    }
    return content;
  }
}

function nextState(state: BuilderState, offline: OfflineOutcome, content: ReplyContent): BuilderState {
  const next: BuilderState = { version: 1, turns: state.turns + 1 };
  if (content.request) {
    next.query = content.request;
    if (content.author !== 'model' && offline.titleGiven) next.titleGiven = true;
    return next;
  }
  if (state.query && !offline.reset) {
    next.query = state.query;
    if (state.titleGiven === true) next.titleGiven = true;
  }
  if (offline.readMessage.trim() !== '' && !unread(offline)) next.pending = { message: offline.readMessage, ...(offline.partial ? { partial: offline.partial } : {}) };
  return next;
}
