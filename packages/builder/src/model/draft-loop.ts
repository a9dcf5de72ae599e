/**
 * The model path: ask the model for a draft, extract it, validate it with the core validator, and on
 * errors send the validator's errors back for a repair, a bounded number of times. Never throws:
 * a model failure (ModelError or anything else) or a draft that never validates is reported, and the
 * caller falls back to the offline grammar.
 */
import { validate, type QueryRequest, type ValidationMode, type ValidationResult } from '@eql/core';
import { ModelError, type ChatMessage, type ChatModel, type Speed } from '@eql/llm';
import { withoutTrades } from '../payment.js';
import { extractRequest } from './extract.js';
import { systemPrompt } from './prompt.js';

/** What the model loop needs for one turn. */
export interface ModelDraftInput {
  model: ChatModel;
  message: string;
  speed: Speed;
  /** Earlier turns of the conversation, oldest first. */
  history: readonly ChatMessage[];
  /** The query of the conversation so far. */
  current?: QueryRequest;
  /** The offline grammar's reading of the message, given as a hint. */
  hint?: { request?: QueryRequest; unknown: string[]; questions: string[] };
  mode: ValidationMode;
  now: number;
  /** Repairs after the first draft (default 2). */
  maxRepairs?: number;
}

/** A valid draft (with trade steps taken out in payment mode), or why the model path failed. */
export type ModelDraft =
  | { ok: true; request: QueryRequest; validation: ValidationResult; refused: string[]; attempts: number }
  /** The model asked a question instead of drafting (something essential was missing). */
  | { ok: false; question: string; attempts: number }
  | { ok: false; reason: string; attempts: number };

const NO_JSON = 'the reply has no ```json code block';

/** Earlier turns given to the model. */
const HISTORY_LIMIT = 12;

/** Runs the draft-validate-repair loop. */
export async function draftWithModel(input: ModelDraftInput): Promise<ModelDraft> {
  const maxRepairs = input.maxRepairs ?? 2;
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(input.mode) }, ...input.history.slice(-HISTORY_LIMIT), { role: 'user', content: userTurn(input) }];
  let lastProblem = 'no draft';
  for (let attempt = 1; attempt <= maxRepairs + 1; attempt += 1) {
    let text: string;
    try {
      text = (await input.model.complete({ messages, speed: input.speed, responseFormat: 'text' })).text;
    } catch (error) {
      const reason = error instanceof ModelError ? `The model failed (${error.code}: ${error.message})` : `The model failed (${error instanceof Error ? error.message : String(error)})`;
      return { ok: false, reason, attempts: attempt };
    }
    const checked = check(text, input);
    if (checked.ok) return { ...checked, attempts: attempt };
    if (attempt === 1 && checked.problem === NO_JSON && text.includes('?')) return { ok: false, question: text.trim(), attempts: attempt };
    lastProblem = checked.problem;
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: checked.feedback });
  }
  return { ok: false, reason: `The model's query did not pass validation after ${maxRepairs} repair${maxRepairs === 1 ? '' : 's'} (${lastProblem})`, attempts: maxRepairs + 1 };
}

type Checked = { ok: true; request: QueryRequest; validation: ValidationResult; refused: string[] } | { ok: false; problem: string; feedback: string };

function check(text: string, input: ModelDraftInput): Checked {
  const extracted = extractRequest(text);
  if ('problem' in extracted) {
    return { ok: false, problem: extracted.problem, feedback: `I could not use your reply: ${extracted.problem}. Reply with the whole query request in one \`\`\`json code block.` };
  }
  let request = extracted.request as unknown as QueryRequest;
  let refused: string[] = [];
  if (input.mode === 'payment' && wellFormedActions(request)) {
    const adapted = withoutTrades(request);
    request = adapted.request;
    refused = adapted.refused;
  }
  const validation = validate(request, { mode: input.mode, now: input.now });
  if (validation.valid) return { ok: true, request, validation, refused };
  const errors = validation.errors.slice(0, 20);
  return {
    ok: false,
    problem: errors[0] ?? 'invalid',
    feedback: ['The validator rejected this query:', ...errors.map((error) => `- ${error}`), 'Fix these errors and reply with the whole corrected query request in one ```json code block.'].join('\n'),
  };
}

function wellFormedActions(request: QueryRequest): boolean {
  const actions = (request.query as { actions?: unknown }).actions;
  return Array.isArray(actions) && actions.every((action) => action !== null && typeof action === 'object' && typeof (action as { type?: unknown }).type === 'string');
}

function userTurn(input: ModelDraftInput): string {
  const parts = [`Time now (UTC): ${new Date(input.now).toISOString()}. Mode: ${input.mode}.`];
  parts.push(
    input.current
      ? `Current query (amend it when my message is a follow-up; otherwise write a new one):\n\`\`\`json\n${JSON.stringify(input.current)}\n\`\`\``
      : 'There is no current query yet.',
  );
  const hint = input.hint;
  if (hint?.request) parts.push(`An offline parser read my message as this query (a hint; it may be incomplete):\n\`\`\`json\n${JSON.stringify(hint.request)}\n\`\`\``);
  if (hint && hint.unknown.length > 0) parts.push(`The offline parser did not understand: ${hint.unknown.map((phrase) => `"${phrase}"`).join(', ')}.`);
  parts.push(`My message: ${input.message}`);
  return parts.join('\n\n');
}
