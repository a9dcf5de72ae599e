/**
 * The host's LLM layer: chat models (OpenAI-compatible), the analysts that answer chat, event
 * summaries, narratives, llm conditions and llm actions (over a model, or offline from the local
 * market data), and the factory that picks one. See docs/llm.md.
 *
 * @packageDocumentation
 */
export * from './chat-model.js';
export * from './analyst.js';
export * from './llm-config.js';
export { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.js';
export { OfflineAnalyst, type OfflineAnalystOptions } from './offline-analyst.js';
export { ModelAnalyst, type ModelAnalystOptions } from './model-analyst.js';
export { createAnalyst, composeProvider, type CreateAnalystOptions, type ComposeOptions } from './create-analyst.js';
export { OFFLINE_NOTICE } from './text/format.js';
export { guardQuotes, type QuoteSource } from './text/quote-guard.js';
export { scoreEvidence, rankEvidence, type EvidenceItem, type EvidenceScore, type JudgeRequest } from './offline/heuristic-judge.js';
export { tradeIntent, type TradeIntent } from './offline/trade-intent.js';
export { extractEvents, extractNarratives } from './offline/summaries.js';
export { parseJudgement, parseTrades, parseAnalysis, findJsonObject } from './model/json-reply.js';
