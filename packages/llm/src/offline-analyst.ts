import type { LlmAnalysis, LlmAnalyzeRequest, LlmJudgement, LlmProvider } from '@eql/core';
import type { MarketData, StoredPost, TimeRange } from '@eql/market-data';
import type { Analyst, ChatTurn, EventSummary, Narrative } from './analyst.js';
import type { Speed } from './chat-model.js';
import { FactGatherer } from './context/fact-gatherer.js';
import { HeuristicJudge, type JudgeRequest } from './offline/heuristic-judge.js';
import { offlineAnalysis } from './offline/offline-report.js';
import { renderAccount, renderChat, renderMacro, renderSummary, renderToken } from './offline/render-replies.js';
import { extractEvents, extractNarratives } from './offline/summaries.js';
import { OFFLINE_NOTICE } from './text/format.js';
import { significantTerms } from './text/terms.js';

/** Tuning of an {@link OfflineAnalyst}: its time windows and how many posts it reads per question. */
export interface OfflineAnalystOptions {
  /** Length of "now" and "before" in chat answers (default 24h). */
  windowMs?: number;
  /** Window of evidence for llm conditions when the request carries no period (default 24h). */
  judgeWindowMs?: number;
  /** Posts read per question (default 500). */
  readLimit?: number;
}

/**
 * The analyst without a language model: every answer is computed from the local market data by
 * fixed rules, so the same data and inputs always give the same text, and every chat reply and
 * action report opens with OFFLINE_NOTICE. Chat history and speed do not change its answers. As an
 * engine provider it judges llm conditions by lexical evidence (offline/heuristic-judge.ts) and
 * reports llm actions from the trigger and the data (offline/offline-report.ts), signalling a trade
 * only on an explicit instruction (offline/trade-intent.ts).
 */
export class OfflineAnalyst implements Analyst {
  readonly offline = true;
  readonly provider: LlmProvider;
  private readonly gatherer: FactGatherer;
  private readonly judge: HeuristicJudge;

  constructor(market: MarketData, options: OfflineAnalystOptions = {}) {
    this.gatherer = new FactGatherer(market, { ...(options.windowMs ? { windowMs: options.windowMs } : {}), ...(options.readLimit ? { readLimit: options.readLimit } : {}) });
    this.judge = new HeuristicJudge(market, options.judgeWindowMs ?? 86_400_000);
    this.provider = {
      judge: (request: JudgeRequest): Promise<LlmJudgement> => this.judge.judge(request),
      analyze: (request: LlmAnalyzeRequest): Promise<LlmAnalysis> => offlineAnalysis(request, this.gatherer),
    };
  }

  async chat(turn: ChatTurn): Promise<{ message: string }> {
    return { message: `${OFFLINE_NOTICE}\n\n${await this.answer(turn)}` };
  }

  eventSummary(request: { keywords: string[]; range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<EventSummary[]> {
    return Promise.resolve(extractEvents({ posts: request.posts, keywords: request.keywords, limit: request.limit }));
  }

  narratives(request: { range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<Narrative[]> {
    return Promise.resolve(extractNarratives({ posts: request.posts, range: request.range, limit: request.limit }));
  }

  private async answer(turn: ChatTurn): Promise<string> {
    const message = turn.message?.trim() ?? '';
    const asset = turn.assetMetadata ?? {};
    switch (turn.analysisType) {
      case 'macro':
        return renderMacro(await this.gatherer.marketView(turn.now));
      case 'summary':
        return renderSummary(await this.gatherer.topic(significantTerms(message).map((term) => term.surface).slice(0, 6), turn.now));
      case 'tokenIntro':
      case 'tokenAnalysis': {
        const depth = turn.analysisType === 'tokenIntro' ? 'intro' : 'analysis';
        const resolved = await this.gatherer.resolveToken(asset);
        if (!resolved) {
          if (asset.contractAddress) return `No post in the local data names the contract \`${asset.contractAddress}\`${asset.chain ? ` on ${asset.chain}` : ''}, so I cannot tell which token it is.`;
          return `${turn.analysisType} needs assetMetadata.symbol, or chain and contractAddress.`;
        }
        const facts = await this.gatherer.token(resolved.token, turn.now, depth);
        if (resolved.askedContract) facts.askedContract = resolved.askedContract;
        return renderToken(facts, depth);
      }
      case 'accountAnalysis': {
        if (!asset.username) return 'accountAnalysis needs assetMetadata.username.';
        const facts = await this.gatherer.account(asset.username, turn.now);
        return facts ? renderAccount(facts) : `The local data has no account @${asset.username.replace(/^@/, '')}.`;
      }
      default:
        if (message === '') return 'Send a message to ask about tokens ($PEPE), accounts (@name), contract addresses or topics.';
        return renderChat(await this.gatherer.chat(message, turn.now));
    }
  }
}
