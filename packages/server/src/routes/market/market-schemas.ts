/**
 * Route schemas of the market data endpoints (spec 4.2 and their payment-model twins in 4.5):
 * parameters with their bounds and defaults (documented in docs/http-api.md), and response shapes.
 */

import { errorResponses as errors } from '../error-schemas.js';

const timeFilter = {
  timeWindow: { type: 'string', maxLength: 16, description: 'A window ending now: 1m to 366d, as 15m, 4h, 24h, 7d or 2w. Ignored when from and to are given.' },
  from: { type: 'string', maxLength: 40, description: 'Start (inclusive): ISO 8601 or epoch milliseconds; needs to.' },
  to: { type: 'string', maxLength: 40, description: 'End (exclusive): ISO 8601 or epoch milliseconds; needs from.' },
} as const;
const paging = {
  page: { type: 'integer', minimum: 1, maximum: 10_000, default: 1 },
  pageSize: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;
const speed = { type: 'string', enum: ['fast', 'expert'], default: 'fast' } as const;
const keywords = {
  description: 'Keywords or cashtags, comma separated or repeated; a post matches when it has any of them (whole words, case-insensitive).',
  anyOf: [
    { type: 'string', maxLength: 2_000 },
    { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 200 } },
  ],
} as const;
const ticker = { type: 'string', minLength: 1, maxLength: 13, description: 'A ticker with or without a leading $ (BTC, $btc).' } as const;

export const mention = {
  type: 'object',
  description: 'Spec 2.11. The post text is never returned; follow the link.',
  properties: {
    tweetId: { type: 'string' },
    link: { type: 'string' },
    likeCount: { type: 'integer' },
    repostCount: { type: 'integer' },
    viewCount: { type: 'integer' },
    quoteCount: { type: 'integer' },
    replyCount: { type: 'integer' },
    bookmarkCount: { type: 'integer' },
    mentionedAt: { type: 'string', format: 'date-time' },
    type: { type: 'string', enum: ['post', 'repost', 'quote', 'reply'] },
    repostBreakdown: { type: 'object', properties: { smart: { type: 'integer' }, ct: { type: 'integer' } }, required: ['smart', 'ct'] },
    account: { type: 'object', properties: { username: { type: 'string' }, isVerified: { type: 'boolean' } }, required: ['username', 'isVerified'] },
  },
  required: ['tweetId', 'link', 'likeCount', 'repostCount', 'viewCount', 'quoteCount', 'replyCount', 'bookmarkCount', 'mentionedAt', 'type', 'repostBreakdown'],
} as const;

const window = { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'] } as const;
const pagedTop = { page: { type: 'integer' }, pageSize: { type: 'integer' }, total: { type: 'integer' } } as const;
const pageMetadata = { type: 'object', properties: pagedTop, required: ['page', 'pageSize', 'total'] } as const;

const trendingCas = {
  querystring: { type: 'object', additionalProperties: false, properties: { ...timeFilter, ...paging, chain: { type: 'string', pattern: '^[a-z0-9-]{2,32}$', description: 'Only addresses on this chain (solana, ethereum, base, bsc, evm, ...).' } } },
  response: {
    200: {
      type: 'object',
      properties: {
        success: { type: 'boolean' },
        ...pagedTop,
        window,
        data: { type: 'array', items: { type: 'object', properties: { contractAddress: { type: 'string' }, chain: { type: 'string' }, mentionCount: { type: 'integer' } }, required: ['contractAddress', 'chain', 'mentionCount'] } },
      },
      required: ['success', 'page', 'pageSize', 'total', 'data'],
    },
    ...errors(400, 401, 429),
  },
} as const;

export const M = {
  smartStats: {
    tags: ['data'],
    summary: 'Reach, engagement and smart followers of an account',
    querystring: { type: 'object', additionalProperties: false, properties: { username: { type: 'string', minLength: 1, maxLength: 51 }, accountName: { type: 'string', minLength: 1, maxLength: 51 } } },
    response: {
      200: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          data: { type: 'object', properties: { username: { type: 'string' }, averageReach: { type: 'number' }, averageEngagement: { type: 'number' }, smartFollowingCount: { type: 'number' }, postsAnalyzed: { type: 'integer' } }, required: ['averageReach', 'averageEngagement', 'smartFollowingCount'] },
        },
        required: ['success', 'data'],
      },
      ...errors(400, 401, 404, 429),
    },
  },
  trendingTokens: {
    tags: ['data'],
    summary: 'Tokens by mentions in the window against the window before it',
    querystring: { type: 'object', additionalProperties: false, properties: { ...timeFilter, ...paging, minMentions: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 3, description: 'Least mentions in the current window.' } } },
    response: {
      200: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          ...pagedTop,
          window,
          data: { type: 'array', items: { type: 'object', properties: { change_percent: { type: 'number' }, previous_count: { type: 'integer' }, current_count: { type: 'integer' }, token: { type: 'string' } }, required: ['change_percent', 'previous_count', 'current_count', 'token'] } },
        },
        required: ['success', 'page', 'pageSize', 'total', 'data'],
      },
      ...errors(400, 401, 429),
    },
  },
  trendingCasTwitter: { tags: ['data'], summary: 'Contract addresses most mentioned in posts', ...trendingCas },
  trendingCasTelegram: { tags: ['data'], summary: 'Contract addresses most mentioned in Telegram messages', ...trendingCas },
  eventSummary: {
    tags: ['data'],
    summary: 'Events in the keyword mentions of a period, summarized (5 credits)',
    querystring: { type: 'object', additionalProperties: false, required: ['keywords'], properties: { keywords, ...timeFilter, limit: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'Most events to return.' }, speed } },
    response: {
      200: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          data: { type: 'array', items: { type: 'object', properties: { tweetIds: { type: 'array', items: { type: 'string' } }, sourceLinks: { type: 'array', items: { type: 'string' } }, summary: { type: 'string' } }, required: ['tweetIds', 'sourceLinks', 'summary'] } },
        },
        required: ['success', 'data'],
      },
      ...errors(400, 401, 429, 502, 504),
    },
  },
  keywordMentions: {
    tags: ['data'],
    summary: 'Posts with the keywords and/or of an account, newest first, cursor paged',
    querystring: {
      type: 'object',
      additionalProperties: false,
      properties: { keywords, accountName: { type: 'string', minLength: 1, maxLength: 51 }, ...timeFilter, cursor: { type: 'integer', minimum: 0, description: 'metadata.cursor of the previous page (epoch ms).' }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    },
    response: {
      200: {
        type: 'object',
        properties: { success: { type: 'boolean' }, data: { type: 'array', items: mention }, metadata: { type: 'object', properties: { total: { type: 'integer' }, cursor: { type: 'integer' } }, required: ['total'] } },
        required: ['success', 'data', 'metadata'],
      },
      ...errors(400, 401, 429),
    },
  },
  tokenNews: {
    tags: ['data'],
    summary: 'Posts of news accounts about a token, newest first',
    querystring: { type: 'object', additionalProperties: false, properties: { token: ticker, symbol: ticker, ...paging } },
    response: {
      200: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'array', items: mention }, metadata: pageMetadata }, required: ['success', 'data', 'metadata'] },
      ...errors(400, 401, 429),
    },
  },
  topMentions: {
    tags: ['data'],
    summary: 'Posts about a ticker ranked by views, then time, then relevance',
    querystring: { type: 'object', additionalProperties: false, properties: { symbol: ticker, token: ticker, ...timeFilter, ...paging } },
    response: {
      200: { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'array', items: mention }, metadata: pageMetadata }, required: ['success', 'data', 'metadata'] },
      ...errors(400, 401, 429),
    },
  },
  trendingNarratives: {
    tags: ['data'],
    summary: 'Narratives of the posts of a period (5 credits)',
    querystring: { type: 'object', additionalProperties: false, properties: { ...timeFilter, limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 }, speed } },
    response: {
      200: {
        type: 'object',
        properties: {
          success: { type: 'boolean' },
          data: {
            type: 'object',
            properties: {
              metadata: { type: 'object', properties: { error: { type: ['string', 'null'] }, total_tweets: { type: 'integer' }, total_narratives: { type: 'integer' } }, required: ['error', 'total_tweets', 'total_narratives'] },
              trending_narratives: { type: 'array', items: { type: 'object', properties: { tweet_ids: { type: 'array', items: { type: 'string' } }, source_links: { type: 'array', items: { type: 'string' } }, narrative: { type: 'string' } }, required: ['tweet_ids', 'source_links', 'narrative'] } },
            },
            required: ['metadata', 'trending_narratives'],
          },
        },
        required: ['success', 'data'],
      },
      ...errors(400, 401, 429, 502, 504),
    },
  },
  ingest: {
    tags: ['data'],
    summary: 'Adds posts, news, Telegram messages and account profiles (keys with the ingest scope)',
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['items'],
      properties: { items: { type: 'array', minItems: 1, maxItems: 10_000, items: { type: 'object', additionalProperties: true, description: 'schemas/ingest.schema.json' } } },
    },
    response: {
      200: {
        type: 'object',
        properties: { success: { type: 'boolean' }, data: { type: 'object', properties: { posts: { type: 'integer' }, news: { type: 'integer' }, telegram: { type: 'integer' }, accounts: { type: 'integer' }, duplicates: { type: 'integer' } }, required: ['posts', 'news', 'telegram', 'accounts', 'duplicates'] } },
        required: ['success', 'data'],
      },
      ...errors(400, 401, 403, 413),
    },
  },
} as const;
