/**
 * The Markdown reply: what the query does in words (conditions, actions, lifetime, estimated
 * credits), the whole query request in one ```json block, then the validator's warnings. A turn
 * that cannot produce a valid query asks instead, quoting what was not understood, and has no JSON.
 */
import { estimateCost, priceOfCredits, type QueryRequest, type ValidationMode, type ValidationResult } from '@eql/core';
import { describeAction, describeConditions, describeLifetime } from './describe.js';
import type { TurnFindings } from './turn-findings.js';

/** Everything a reply says. */
export interface ReplyContent extends TurnFindings {
  mode: ValidationMode;
  /** Who wrote the query: the model, the grammar, or the grammar after the model failed. */
  author: 'model' | 'grammar' | 'fallback';
  /** Why the model's draft was not used (fallback only). */
  fallbackReason?: string;
  /** The model's own clarifying question, answered next turn. */
  modelQuestion?: string;
}

/** Renders the reply of a turn. */
export function renderReply(content: ReplyContent): string {
  const parts: string[] = [];
  if (content.author === 'fallback') parts.push(`${content.fallbackReason ?? 'The model did not produce a valid query'}, so I used the offline grammar instead.`);
  if (content.modelQuestion !== undefined) parts.push(content.modelQuestion);
  else if (content.request && content.validation) parts.push(...querySection(content, content.request, content.validation));
  else parts.push(...askSection(content));
  return `${parts.join('\n\n').trim()}\n`;
}

function querySection(content: ReplyContent, request: QueryRequest, validation: ValidationResult): string[] {
  const parts: string[] = [lead(content)];
  if (content.refused.length > 0) {
    parts.push(
      `Orders need an API key: the keyless (payment) API runs only notify, webhook, messenger_bot and llm actions, so I left out ${content.refused.map((step) => `*${step}*`).join(', ')}. ` +
        'This is the non-trade version; with an API key (`/v2/auto/chat`) I can build the version with the order.',
    );
  }
  parts.push(explain(request, validation, content.mode));
  if (content.notes.length > 0) parts.push(['Notes:', ...unique(content.notes).map((note) => `- ${note}`)].join('\n'));
  parts.push(['```json', JSON.stringify(request, null, 2), '```'].join('\n'));
  if (validation.warnings.length > 0) parts.push(['**Warnings** (from the validator):', ...validation.warnings.map((warning) => `- ${warning}`)].join('\n'));
  return parts;
}

function lead(content: ReplyContent): string {
  const by = content.author === 'model' ? ' (drafted by the model and checked by the validator)' : '';
  if (content.kind === 'amended') return `I updated the query${by}.`;
  if (content.kind === 'confirmed') return 'Done: here is the query as I understood it.';
  return `Here is your query${by}.`;
}

/** The query in words: conditions, actions, lifetime and cost. */
export function explain(request: QueryRequest, validation: ValidationResult, mode: ValidationMode): string {
  const { query } = request;
  const lines: string[] = [];
  if (request.title !== undefined) lines.push(`**${request.title}**`, '');
  lines.push('**When**', ...describeConditions(query.conditions), '', '**Then**');
  query.actions.forEach((action, index) => lines.push(`${index + 1}. ${describeAction(action)}`));
  lines.push('', describeLifetime(query));
  const cost = validation.estimatedCost ?? estimateCost(query).estimatedCost;
  const calls = validation.simulationLlmCallsEstimate;
  const total = calls === undefined ? 0 : calls.conditionCallsUpperBound + calls.actionCallsUpperBound;
  const llm = total === 0 ? '' : `; up to ${total} LLM call${total === 1 ? '' : 's'}`;
  const where = mode === 'payment' ? ' (paid per request in payment mode)' : '';
  lines.push(`Estimated cost: **${cost.credits} credits** (${priceOfCredits(cost.credits)})${where}${llm}.`);
  return lines.join('\n');
}

function askSection(content: ReplyContent): string[] {
  const parts: string[] = [];
  if (content.rejected) {
    parts.push(['The query I could build does not pass validation:', ...content.rejected.errors.map((error) => `- ${error}`)].join('\n'));
    parts.push('Could you adjust the request? For example change the value or duration the error names.');
    return parts;
  }
  const lines: string[] = [content.questions.length > 0 || content.unknown.length > 0 ? 'I need a little more to build this query.' : 'I could not find a query in that message.'];
  if (content.unknown.length > 0) lines.push(`- I did not understand ${unique(content.unknown).map((phrase) => `"${phrase}"`).join(', ')}.`);
  for (const question of unique(content.questions)) lines.push(`- ${question}`);
  parts.push(lines.join('\n'));
  if (content.partial) {
    const understood = content.partial.query;
    const words = ['What I understood so far:', '', '**When**', ...describeConditions(understood.conditions), '', '**Then**'];
    understood.actions.forEach((action, index) => words.push(`${index + 1}. ${describeAction(action)}`));
    parts.push(words.join('\n'));
    parts.push('Reply "yes" to use it as it is, or rephrase or answer the question above.');
  } else if (content.questions.length === 0 && content.unknown.length === 0) {
    parts.push('Try for example: "alert me when BTC is above 70k", "when @elonmusk posts about dogecoin, send it to https://example.com/hook", or "every day at 9:00 send me a summary of ETH".');
  }
  return parts;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items.filter((item) => item.trim() !== ''))];
}
