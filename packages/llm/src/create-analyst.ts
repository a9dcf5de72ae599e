import { catchError, defer, from, type Observable, take, throwIfEmpty } from 'rxjs';
import type { LlmAnalysis, LlmAnalyzeRequest, LlmJudgement, LlmJudgeRequest, LlmProvider } from '@eql/core';
import type { MarketData } from '@eql/market-data';
import type { Analyst } from './analyst.js';
import type { ChatModel } from './chat-model.js';
import type { LlmConfig } from './llm-config.js';
import { ModelAnalyst, type ModelAnalystOptions } from './model-analyst.js';
import { OfflineAnalyst, type OfflineAnalystOptions } from './offline-analyst.js';
import { OpenAiChatModel } from './openai-chat-model.js';

/** What {@link createAnalyst} builds from: the market data to answer from, and a model or its configuration. */
export interface CreateAnalystOptions {
  /** The local posts, news and stats every answer is computed from. */
  market: MarketData;
  /** The model configuration (`llmConfigFromEnv()`); undefined: no model. */
  config?: LlmConfig;
  /** A ready model (tests, other vendors); wins over `config`. */
  model?: ChatModel;
  /** Options of whichever analyst is built. */
  analyst?: ModelAnalystOptions & OfflineAnalystOptions;
}

/** The model analyst over `model`, else over an OpenAiChatModel of `config`, else the offline analyst. */
export function createAnalyst(options: CreateAnalystOptions): Analyst {
  const settings = options.analyst ?? {};
  const model = options.model ?? (options.config ? new OpenAiChatModel(options.config) : undefined);
  return model ? new ModelAnalyst(model, options.market, settings) : new OfflineAnalyst(options.market, settings);
}

/** Options of {@link composeProvider}. */
export interface ComposeOptions {
  /** Maps an engine instant to the recording's clock before asking the recorded provider (a shifted, looping replay). */
  toRecordingTime?: (at: number) => number;
}

/**
 * The host's engine provider with a replay recording: an llm condition is judged by the recorded
 * verdicts when the recording has one for its predicate at or before the instant (RecordedLlmProvider
 * fails otherwise), and by the analyst when it has none, so replayed demo queries stay as recorded
 * and every other predicate gets a real judgement. llm actions always go to the analyst: recorded
 * analyses are a fixed replay text. A failure of the analyst is the engine's to report.
 */
export function composeProvider(recorded: LlmProvider, analyst: LlmProvider, options: ComposeOptions = {}): LlmProvider {
  return {
    judge: (request: LlmJudgeRequest): Observable<LlmJudgement> =>
      defer(() => from(recorded.judge(options.toRecordingTime ? { ...request, at: options.toRecordingTime(request.at) } : request))).pipe(
        take(1),
        throwIfEmpty(),
        catchError(() => from(analyst.judge(request)).pipe(take(1))),
      ),
    analyze: (request: LlmAnalyzeRequest): Observable<LlmAnalysis> => from(analyst.analyze(request)).pipe(take(1)),
  };
}
