import type { ConditionState, LlmAnalysis, LlmAnalyzeRequest, TriggerContext } from '@eql/core';
import type { AssetMetadata } from '../analyst.js';
import type { FactGatherer } from '../context/fact-gatherer.js';
import { OFFLINE_NOTICE, utcMinute } from '../text/format.js';
import { significantTerms } from '../text/terms.js';
import { renderAccount, renderChat, renderMacro, renderSummary, renderToken } from './render-replies.js';
import { tradeIntent } from './trade-intent.js';

/**
 * The offline report of an llm action: what fired (the query, the trigger, each condition with its
 * value and threshold), the local facts the analysis type asks for at the firing instant, and the
 * trade decision (trade-intent.ts). Matched items are named by id, never by their text.
 */

const number = (value: number) => (Number.isInteger(value) ? String(value) : String(Math.round(value * 10_000) / 10_000));

export function conditionLine(state: ConditionState): string {
  const name = [state.source, state.method].filter(Boolean).join('.');
  const parts = [`\`${state.path}\` ${name}: ${state.holds ? 'held' : 'did not hold'}`];
  if (state.value !== undefined) parts.push(`value ${number(state.value)}`);
  if (state.threshold !== undefined) parts.push(`threshold ${number(state.threshold)}`);
  if (state.since !== undefined) parts.push(`since ${utcMinute(state.since)}`);
  if (state.match) parts.push(`matched item ${state.match.id ?? '(no id)'} at ${utcMinute(state.match.at)} with confidence ${number(state.match.confidence)}`);
  return `- ${parts.join(', ')}`;
}

export function triggerLines(trigger: TriggerContext): string[] {
  return [
    `### Trigger`,
    `Query ${trigger.title ? `"${trigger.title}"` : trigger.queryId} fired at ${utcMinute(trigger.firedAt)} (trigger #${trigger.triggerIndex}).`,
    ...(trigger.conditionStates.length > 0 ? ['Conditions at the trigger:', ...trigger.conditionStates.map(conditionLine)] : ['No condition state was recorded.']),
  ];
}

function asset(request: LlmAnalyzeRequest): AssetMetadata {
  const metadata = request.assetMetadata ?? {};
  const out: AssetMetadata = {};
  for (const key of ['symbol', 'chain', 'contractAddress', 'username'] as const) if (typeof metadata[key] === 'string') out[key] = metadata[key];
  return out;
}

/** The facts section for the analysis type, at the firing instant. */
async function body(request: LlmAnalyzeRequest, gatherer: FactGatherer): Promise<string> {
  const now = request.trigger.firedAt;
  const metadata = asset(request);
  switch (request.analysisType) {
    case 'macro':
      return renderMacro(await gatherer.marketView(now));
    case 'summary':
      return renderSummary(await gatherer.topic(significantTerms(request.prompt).map((term) => term.surface).slice(0, 6), now));
    case 'tokenIntro':
    case 'tokenAnalysis': {
      const resolved = await gatherer.resolveToken(metadata);
      if (!resolved) return 'The action names no token the local data knows (assetMetadata.symbol, or chain and contractAddress).';
      const facts = await gatherer.token(resolved.token, now, request.analysisType === 'tokenIntro' ? 'intro' : 'analysis');
      if (resolved.askedContract) facts.askedContract = resolved.askedContract;
      return renderToken(facts, request.analysisType === 'tokenIntro' ? 'intro' : 'analysis');
    }
    case 'accountAnalysis': {
      if (metadata.username === undefined) return 'The action names no account (assetMetadata.username).';
      const facts = await gatherer.account(metadata.username, now);
      return facts ? renderAccount(facts) : `The local data has no account @${metadata.username.replace(/^@/, '')}.`;
    }
    default:
      return renderChat(await gatherer.chat(request.prompt, now));
  }
}

export async function offlineAnalysis(request: LlmAnalyzeRequest, gatherer: FactGatherer): Promise<LlmAnalysis> {
  const intent = tradeIntent(request.prompt, asset(request).symbol);
  const response = [OFFLINE_NOTICE, '', ...triggerLines(request.trigger), '', await body(request, gatherer), '', '### Decision', intent.note].join('\n');
  return { response, trades: intent.signal ? [intent.signal] : [] };
}
