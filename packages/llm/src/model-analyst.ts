import type { LlmAnalysis, LlmAnalyzeRequest, LlmJudgement, LlmProvider, LlmSpeed } from '@eql/core';
import type { MarketData, StoredPost, TimeRange } from '@eql/market-data';
import type { AnalysisType, Analyst, AssetMetadata, ChatTurn, EventSummary, Narrative } from './analyst.js';
import type { ChatModel, CompletionRequest, Speed } from './chat-model.js';
import { FactGatherer } from './context/fact-gatherer.js';
import { accountContext, chatContext, marketContext, postsForPrompt, type PromptContext, tokenContext, topicContext, triggerContext } from './model/context-json.js';
import { parseAnalysis, parseGroups, parseJudgement } from './model/json-reply.js';
import { analyzeMessages, chatMessages, groupMessages, judgeMessages } from './model/prompts.js';
import { HeuristicJudge, type JudgeRequest, rankEvidence } from './offline/heuristic-judge.js';
import { canonicalPosts } from './offline/summaries.js';
import { guardQuotes } from './text/quote-guard.js';
import { significantTerms } from './text/terms.js';

/** Tuning of a {@link ModelAnalyst}: its time windows and how many posts and evidence items reach the model. */
export interface ModelAnalystOptions {
  /** Length of "now" and "before" in the facts (default 24h). */
  windowMs?: number;
  /** Window of evidence for llm conditions when the request carries no period (default 24h). */
  judgeWindowMs?: number;
  /** Posts read per question (default 500). */
  readLimit?: number;
  /** Evidence items shown to the model per judgement (default 25). */
  evidenceLimit?: number;
  /** Posts shown to the model for event summaries and narratives (default 80, most viewed). */
  groupPostLimit?: number;
  /** Adaptive judgements between these confidences are asked again of the expert model (default [30, 70]). */
  adaptiveBand?: [number, number];
}

const ANALYSIS_TYPES = new Set<string>(['chat', 'macro', 'summary', 'tokenIntro', 'tokenAnalysis', 'accountAnalysis']);
const EXCERPT_FOR_GROUPS = 200;

/**
 * The analyst over a language model. It gathers the same local facts as the offline analyst
 * (FactGatherer), gives them to the model as JSON with short post excerpts, and asks per analysis
 * type. Post text stays on the server side: the prompt tells the model to cite links and never copy
 * posts, and every reply goes through the quote guard, which replaces any run of 8+ words of a
 * post by its link. JSON replies are validated: judgements clamped to 0..100, trade signals checked,
 * tweet ids of summaries and narratives kept only when they are among the posts given (links come
 * from the data, never from the model). `fast` and `expert` pick the model; `adaptive` asks the fast
 * model, then the expert when the fast verdict is uncertain (inside `adaptiveBand`) or a fast
 * analysis proposes trades or is not JSON. Model failures are ModelError.
 */
export class ModelAnalyst implements Analyst {
  readonly offline = false;
  readonly provider: LlmProvider;
  private readonly gatherer: FactGatherer;
  private readonly evidence: HeuristicJudge;

  constructor(
    private readonly model: ChatModel,
    market: MarketData,
    private readonly options: ModelAnalystOptions = {},
  ) {
    this.gatherer = new FactGatherer(market, { ...(options.windowMs ? { windowMs: options.windowMs } : {}), ...(options.readLimit ? { readLimit: options.readLimit } : {}) });
    this.evidence = new HeuristicJudge(market, options.judgeWindowMs ?? 86_400_000);
    this.provider = {
      judge: (request: JudgeRequest) => this.judge(request),
      analyze: (request: LlmAnalyzeRequest) => this.analyze(request),
    };
  }

  async chat(turn: ChatTurn): Promise<{ message: string }> {
    const { context, sources } = await this.contextFor(turn.analysisType, turn.message ?? '', turn.assetMetadata ?? {}, turn.now);
    const completion = await this.model.complete({ messages: chatMessages(turn.analysisType, context, turn.message, turn.history), speed: turn.speed, maxTokens: 1_200 });
    return { message: guardQuotes(completion.text, sources) };
  }

  async eventSummary(request: { keywords: string[]; range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<EventSummary[]> {
    const groups = await this.groups('events', request.posts, request.keywords, request.speed, request.limit);
    return groups.map((group) => ({ tweetIds: group.posts.map((post) => post.tweetId), sourceLinks: group.posts.map((post) => post.link), summary: group.text }));
  }

  async narratives(request: { range: TimeRange; posts: StoredPost[]; speed: Speed; limit: number }): Promise<Narrative[]> {
    const groups = await this.groups('narratives', request.posts, [], request.speed, request.limit);
    return groups.map((group) => ({ tweet_ids: group.posts.map((post) => post.tweetId), source_links: group.posts.map((post) => post.link), narrative: group.text }));
  }

  /** Asks the model to group posts; keeps only ids among the posts given, each in one group. */
  private async groups(kind: 'events' | 'narratives', posts: readonly StoredPost[], keywords: readonly string[], speed: Speed, limit: number): Promise<Array<{ text: string; posts: StoredPost[] }>> {
    if (posts.length === 0 || limit <= 0) return [];
    const shown = canonicalPosts(posts).slice(0, this.options.groupPostLimit ?? 80);
    const { context, sources } = postsForPrompt(shown, EXCERPT_FOR_GROUPS);
    const completion = await this.model.complete({ messages: groupMessages(kind, limit, context, keywords), speed, responseFormat: 'json', maxTokens: 1_500 });
    const byId = new Map(shown.map((post) => [post.tweetId, post]));
    const used = new Set<string>();
    const out: Array<{ text: string; posts: StoredPost[] }> = [];
    for (const group of parseGroups(completion.text, kind, kind === 'events' ? 'summary' : 'narrative')) {
      const members: StoredPost[] = [];
      for (const id of group.ids) {
        const post = byId.get(id);
        if (!post || used.has(id)) continue;
        used.add(id);
        members.push(post);
      }
      if (members.length > 0) out.push({ text: guardQuotes(group.text, sources), posts: members });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Judges an llm condition: the model reads the most relevant posts and news of the window. */
  async judge(request: JudgeRequest): Promise<LlmJudgement> {
    const range = this.evidence.windowOf(request);
    const items = rankEvidence(request.query, await this.evidence.evidence(request.query, range), this.options.evidenceLimit ?? 25);
    const sources = items.filter((item) => item.link !== undefined).map((item) => ({ text: item.text, link: item.link as string }));
    const evidence = {
      window: { from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() },
      items: items.map((item) => ({ kind: item.kind, id: item.id, at: item.at === undefined ? null : new Date(item.at).toISOString(), by: item.author ?? null, views: item.views ?? null, excerpt: item.text.slice(0, 200) })),
    };
    const ask = async (speed: Speed) => {
      const completion = await this.model.complete({ messages: judgeMessages(request.query, request.at, evidence), speed, responseFormat: 'json', maxTokens: 300 });
      const judgement = parseJudgement(completion.text);
      if (judgement.reasoning !== undefined) judgement.reasoning = guardQuotes(judgement.reasoning, sources);
      return judgement;
    };
    const first = await ask(firstSpeed(request.speed));
    const [low, high] = this.options.adaptiveBand ?? [30, 70];
    if (request.speed === 'adaptive' && first.confidence >= low && first.confidence <= high) return ask('expert');
    return first;
  }

  /** Runs an llm action: trigger, local facts of its analysis type, the user's prompt; JSON with a response and trades. */
  async analyze(request: LlmAnalyzeRequest): Promise<LlmAnalysis> {
    const type: AnalysisType = ANALYSIS_TYPES.has(request.analysisType) ? (request.analysisType as AnalysisType) : 'chat';
    const asset: AssetMetadata = {};
    for (const key of ['symbol', 'chain', 'contractAddress', 'username'] as const) {
      const value = request.assetMetadata?.[key];
      if (typeof value === 'string') asset[key] = value;
    }
    const { context, sources } = await this.contextFor(type, request.prompt, asset, request.trigger.firedAt);
    const messages = analyzeMessages(type, request.prompt, triggerContext(request.trigger), context);
    const ask = async (speed: Speed) => {
      const completion: CompletionRequest = { messages, speed, responseFormat: 'json', maxTokens: 1_500 };
      return parseAnalysis((await this.model.complete(completion)).text);
    };
    let analysis = await ask(firstSpeed(request.speed));
    if (request.speed === 'adaptive' && (analysis.trades.length > 0 || !analysis.structured)) analysis = await ask('expert');
    return { response: guardQuotes(analysis.response, sources), trades: analysis.trades };
  }

  /** The local facts of an analysis type as a prompt context. */
  private async contextFor(type: AnalysisType, message: string, asset: AssetMetadata, now: number): Promise<PromptContext> {
    switch (type) {
      case 'macro':
        return marketContext(await this.gatherer.marketView(now));
      case 'summary':
        return topicContext(await this.gatherer.topic(significantTerms(message).map((term) => term.surface).slice(0, 6), now));
      case 'tokenIntro':
      case 'tokenAnalysis': {
        const resolved = await this.gatherer.resolveToken(asset);
        if (!resolved) return { context: { token: null, note: `The local data knows no token for ${JSON.stringify(asset)}.` }, sources: [] };
        const facts = await this.gatherer.token(resolved.token, now, type === 'tokenIntro' ? 'intro' : 'analysis');
        if (resolved.askedContract) facts.askedContract = resolved.askedContract;
        return tokenContext(facts);
      }
      case 'accountAnalysis': {
        const facts = asset.username ? await this.gatherer.account(asset.username, now) : undefined;
        if (!facts) return { context: { account: null, note: `The local data has no account ${asset.username ?? '(none named)'}.` }, sources: [] };
        return accountContext(facts);
      }
      default:
        return chatContext(await this.gatherer.chat(message, now));
    }
  }
}

function firstSpeed(speed: LlmSpeed): Speed {
  return speed === 'expert' ? 'expert' : 'fast';
}
