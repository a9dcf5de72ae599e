import type { LlmProvider } from '@eql/core';
import type { StoredPost, TimeRange } from '@eql/market-data';
import type { ChatMessage, Speed } from './chat-model.js';

/** Spec 4.3. */
export type AnalysisType = 'chat' | 'macro' | 'summary' | 'tokenIntro' | 'tokenAnalysis' | 'accountAnalysis';

/** The asset a turn or an llm action is about: a token symbol, a contract on a chain, or an X account's username. */
export interface AssetMetadata {
  symbol?: string;
  chain?: string;
  contractAddress?: string;
  username?: string;
}

/** One chat question to an {@link Analyst}: its analysis type, the user's message, model speed, asset, earlier turns and instant. */
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

/** One event of `GET /v2/data/event-summary`: a summary of a group of posts, with their tweet ids and links. */
export interface EventSummary {
  tweetIds: string[];
  sourceLinks: string[];
  summary: string;
}

/** One trending narrative of `GET /v2/data/trending-narratives`, with the ids and links of its posts (snake_case, as the API returns it). */
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
  /** Answers one chat turn with a Markdown message, from the local market data of the window before `turn.now`. */
  chat(turn: ChatTurn): Promise<{ message: string }>;
  /** Groups the posts into events and summarizes each (at most `limit` groups). */
  eventSummary(request: { keywords: string[]; range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<EventSummary[]>;
  /** Clusters the posts into trending narratives. */
  narratives(request: { range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<Narrative[]>;
  /** The engine's view: judges llm conditions and runs llm actions. */
  readonly provider: LlmProvider;
}
