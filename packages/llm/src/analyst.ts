import type { LlmProvider } from '@eql/core';
import type { StoredPost, TimeRange } from '@eql/market-data';
import type { ChatMessage, Speed } from './chat-model.js';

/** Spec 4.3. */
export type AnalysisType = 'chat' | 'macro' | 'summary' | 'tokenIntro' | 'tokenAnalysis' | 'accountAnalysis';

export interface AssetMetadata {
  symbol?: string;
  chain?: string;
  contractAddress?: string;
  username?: string;
}

export interface ChatTurn {
  analysisType: AnalysisType;
  message?: string;
  speed: Speed;
  assetMetadata?: AssetMetadata;
  /** Earlier turns of the session, oldest first. */
  history: ChatMessage[];
  /** The instant the answer is about (epoch ms): "recent" means before it. */
  now: number;
}

export interface EventSummary {
  tweetIds: string[];
  sourceLinks: string[];
  summary: string;
}

export interface Narrative {
  tweet_ids: string[];
  source_links: string[];
  narrative: string;
}

/**
 * Who answers the analysis questions of the host: chat, event summaries, narratives, and (as an
 * engine `LlmProvider`) llm conditions and llm actions. Two kinds: a model-backed analyst over an
 * OpenAI-compatible endpoint, and the offline analyst that answers from the local market data,
 * deterministically, and says so in its replies.
 */
export interface Analyst {
  /** True for the built-in offline analyst. */
  readonly offline: boolean;
  chat(turn: ChatTurn): Promise<{ message: string }>;
  /** Groups the posts into events and summarizes each (at most `limit` groups). */
  eventSummary(request: { keywords: string[]; range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<EventSummary[]>;
  /** Clusters the posts into trending narratives. */
  narratives(request: { range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<Narrative[]>;
  /** The engine's view: judges llm conditions and runs llm actions. */
  readonly provider: LlmProvider;
}
