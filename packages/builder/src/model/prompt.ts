/**
 * The system prompt of the model path: EQL in brief, with the enums read from the schema (so the
 * prompt follows the language), the rules the validator enforces, and a few worked examples.
 */
import type { QueryRequest, ValidationMode } from '@eql/core';
import { ACTION_TYPES, ANALYSIS_TYPES, INDICATOR_DEFAULTS, LLM_SPEEDS, METHODS, OPERATORS, SOURCES, TIMEFRAMES } from '../schema-facts.js';

/** The worked examples of the prompt: a message and the request it should give. */
export const PROMPT_EXAMPLES: ReadonlyArray<readonly [string, QueryRequest]> = [
  [
    'Alert me when BTC crosses above 100k, and send it to https://example.com/hook',
    {
      title: 'BTC crosses above 100,000',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_above', value: 100000 }] },
        actions: [
          { stepId: 'notify-1', type: 'notify', params: { message: 'BTC crossed above 100,000' } },
          { stepId: 'webhook-1', type: 'webhook', params: { url: 'https://example.com/hook' } },
        ],
      },
    },
  ],
  [
    'When the 4h RSI of ETH is below 30 and @VitalikButerin posts about a roadmap, analyze ETH; keep it for 3 days',
    {
      title: 'ETH oversold and a roadmap post',
      query: {
        conditions: {
          AND: [
            { source: 'ta', method: 'rsi', args: { symbol: 'ETH', timeframe: '4h', period: 14 }, operator: '<', value: 30 },
            { source: 'tweet', args: { username: 'VitalikButerin', text: 'roadmap', minConfidence: 80 } },
          ],
        },
        actions: [{ stepId: 'analysis-1', type: 'llm', params: { prompt: 'Analyze ETH after the roadmap post', analysisType: 'tokenAnalysis', assetMetadata: { symbol: 'ETH' }, callback: { action: { type: 'notify' } } } }],
        expiresIn: '3d',
      },
    },
  ],
  [
    'If the SEC approves a spot SOL ETF or an LLM thinks market sentiment turned euphoric (check every 4h), buy $500 of SOL with 3x leverage on binance, stop loss 5%',
    {
      title: 'SOL ETF or euphoria',
      query: {
        conditions: {
          OR: [
            { source: 'news', args: { text: 'SEC approves a spot SOL ETF', minConfidence: 80 } },
            { source: 'llm', method: 'athena_condition', args: { query: 'Is crypto market sentiment euphoric?', period: '4h' } },
          ],
        },
        actions: [{ stepId: 'market-1', type: 'market_order', params: { exchange: 'binance', symbol: 'SOL', side: 'buy', amountUsd: 500, leverage: 3, stopLoss: { percent: 5 } } }],
      },
    },
  ],
  [
    'Every day at 9:00 UTC send a summary of BTC to Telegram chat -1001234567890, for a week',
    {
      title: 'Daily BTC summary',
      query: {
        conditions: { AND: [{ source: 'cron', method: 'every', args: { period: '1d', startAt: '2026-01-02T09:00:00Z' } }] },
        actions: [
          { stepId: 'analysis-1', type: 'llm', params: { prompt: 'Summarize the BTC market of the last day', analysisType: 'summary', assetMetadata: { symbol: 'BTC' } } },
          { stepId: 'telegram-1', type: 'messenger_bot', params: { botToken: '<BOT_TOKEN>', chatId: '-1001234567890' } },
        ],
        expiresIn: '7d',
        repeat: { cooldown: '1d' },
      },
    },
  ],
];

function indicatorLine(): string {
  return Object.entries(INDICATOR_DEFAULTS)
    .map(([method, defaults]) => `${method}(${Object.entries(defaults).map(([key, value]) => `${key} ${value}`).join(', ')})`)
    .join('; ');
}

/** The system prompt for a mode. */
export function systemPrompt(mode: ValidationMode): string {
  const actions = mode === 'payment' ? ACTION_TYPES.filter((type) => !type.endsWith('_order')) : ACTION_TYPES;
  return [
    'You write EQL queries: JSON that watches markets and runs actions when conditions hold. Reply with one short sentence and the whole query request in ONE ```json code block: {"title": string (<=120 chars), "query": {"conditions": group, "actions": [...], "expiresIn"?: duration, "repeat"?: {"cooldown": duration, "maxTriggers"?: 1-1000}}}. No comments in the JSON.',
    `Groups: {"AND": [...]} or {"OR": [...]} (1-20 members, nest <=5, <=32 conditions), optional "holdFor": duration. The root is always a group. Durations: a whole number and one unit s, m, h, d, w ("15m", "24h", "7d"); expiresIn 1m..30d (default 24h).`,
    `Condition sources: ${SOURCES.join(', ')}. price methods ${METHODS.price?.join(', ')}: args {symbol, exchange?}; change/high/low/volume also need period (change is in percent). ta methods ${METHODS.ta?.join(', ')}: args {symbol, timeframe (${TIMEFRAMES.join(', ')}; default 1h), windows, exchange?}; defaults ${indicatorLine()}. Operators ${OPERATORS.join(', ')}; value is a number or a live operand {source, method, args} of price/ta (e.g. price crosses_above bbands_upper).`,
    'tweet: {"source": "tweet", "args": {"username" (no @), "text", "minConfidence": 80}} — no method. news: {"source": "news", "args": {"text", "minConfidence": 80}} — no method. llm: {"source": "llm", "method": "athena_condition", "args": {"query", "period" (>= 1h), "speed"?}}. cron: {"source": "cron", "method": "once", "args": {"at": ISO date-time with Z}} or {"method": "every", "args": {"period", "startAt"?}} with a repeat policy.',
    'Routing is strict: a post by a named account is tweet; a world event (approval, exploit, hack, sanctions, listing, ETF) is news; any other fuzzy judgement (sentiment, "does the market look …") is llm. Symbols are tickers without $ (BTC, ETH, SOL) or pairs.',
    `Action types: ${actions.join(', ')}; each {stepId (unique, e.g. notify-1), type, params}. notify {message, title?, priority? low|normal|high}; webhook {url (public https)}; messenger_bot {botToken ("<BOT_TOKEN>" when unknown), chatId (numeric id or @channel), message?}; llm {prompt?, analysisType (${ANALYSIS_TYPES.join(', ')}), speed? (${LLM_SPEEDS.join(', ')}), assetMetadata? {symbol}, callback? {action: {type, params?}}}: put an llm action first.`,
    mode === 'payment'
      ? 'This is the keyless payment mode: NEVER use market_order or limit_order (nor trade callbacks); offer a notification instead and say orders need an API key.'
      : 'market_order {exchange, symbol (perpetual: BTC, BTC-PERP or BTC/USDT:USDT), side buy|sell, exactly one of size | amountUsd | positionSizePercent, leverage? 1-200, reduceOnly?, takeProfit?/stopLoss? {price} or {percent}}; limit_order also needs price and takes timeInForce GTC|IOC|PO. Use exchange "paper" when the user names none.',
    'Default action when none is asked: notify. Keep what the user said; never invent thresholds, order sizes, URLs or chat ids: when something essential is missing, reply with one short question and no JSON. When amending, return the whole updated query.',
    ...PROMPT_EXAMPLES.filter(([, request]) => mode === 'api-key' || !request.query.actions.some((action) => action.type.endsWith('_order'))).map(([message, request]) => `Example — user: ${message}\n\`\`\`json\n${JSON.stringify(request)}\n\`\`\``),
  ].join('\n\n');
}
