import { ApiError, type ErrorCode } from '../../http/errors.js';
import type { AnalysisType, AssetMetadata, Speed } from '@eql/llm';
import { normalizeContract, normalizeToken } from '@eql/market-data';

export const ANALYSIS_TYPES: readonly AnalysisType[] = ['chat', 'macro', 'summary', 'tokenIntro', 'tokenAnalysis', 'accountAnalysis'];
/** Spec 8: a chat answer costs 5 credits fast, 18 expert. */
export const CHAT_CREDITS: Readonly<Record<Speed, number>> = { fast: 5, expert: 18 };
export const MAX_MESSAGE_LENGTH = 4_000;

export interface ChatRequest {
  message?: string;
  analysisType: AnalysisType;
  speed: Speed;
  sessionId?: string;
  assetMetadata?: AssetMetadata;
}

const invalid = (code: ErrorCode, message: string): ApiError => new ApiError(code, message);

/**
 * Spec 4.3: checks a chat body (the route schema has checked the types). `message` is required for
 * `chat`; tokenIntro and tokenAnalysis need `symbol`, or `chain` plus `contractAddress`;
 * accountAnalysis needs `username`. Tickers and usernames are normalized (`$btc` → BTC, `@a` → a).
 */
export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  const analysisType = (body.analysisType ?? 'chat') as AnalysisType;
  const speed = (body.speed ?? 'fast') as Speed;
  const message = typeof body.message === 'string' ? body.message.trim() : undefined;
  if (analysisType === 'chat' && !message) throw invalid('missing_message', 'message is required for analysisType chat');
  const given = (body.assetMetadata ?? {}) as Record<string, unknown>;
  const asset: AssetMetadata = {};
  if (typeof given.symbol === 'string' && given.symbol.trim() !== '') {
    const token = normalizeToken(given.symbol);
    if (!token) throw invalid('invalid_asset_metadata', `assetMetadata.symbol "${given.symbol.slice(0, 20)}" is not a ticker`);
    asset.symbol = token;
  }
  if (typeof given.chain === 'string' && given.chain.trim() !== '') asset.chain = given.chain.trim().toLowerCase();
  if (typeof given.contractAddress === 'string' && given.contractAddress.trim() !== '') {
    const contract = normalizeContract(given.contractAddress);
    if (!contract) throw invalid('invalid_asset_metadata', 'assetMetadata.contractAddress is not an EVM (0x + 40 hex) or Solana address');
    asset.contractAddress = contract.address;
  }
  if (typeof given.username === 'string' && given.username.trim() !== '') {
    const username = given.username.trim().replace(/^@/, '');
    if (!/^[A-Za-z0-9_]{1,50}$/.test(username)) throw invalid('invalid_asset_metadata', 'assetMetadata.username must be an account name (letters, digits, _)');
    asset.username = username;
  }
  if ((analysisType === 'tokenIntro' || analysisType === 'tokenAnalysis') && !asset.symbol && !(asset.chain && asset.contractAddress)) {
    throw invalid('invalid_asset_metadata', `${analysisType} needs assetMetadata.symbol, or assetMetadata.chain with assetMetadata.contractAddress`);
  }
  if (analysisType === 'accountAnalysis' && !asset.username) throw invalid('invalid_asset_metadata', 'accountAnalysis needs assetMetadata.username');
  return {
    analysisType,
    speed,
    ...(message ? { message } : {}),
    ...(typeof body.sessionId === 'string' && body.sessionId !== '' ? { sessionId: body.sessionId } : {}),
    ...(Object.keys(asset).length > 0 ? { assetMetadata: asset } : {}),
  };
}

export const chatBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    message: { type: 'string', maxLength: MAX_MESSAGE_LENGTH },
    analysisType: { type: 'string', enum: ANALYSIS_TYPES },
    speed: { type: 'string', enum: ['fast', 'expert'] },
    sessionId: { type: 'string', maxLength: 64 },
    assetMetadata: {
      type: 'object',
      additionalProperties: false,
      properties: { symbol: { type: 'string', maxLength: 20 }, chain: { type: 'string', maxLength: 40 }, contractAddress: { type: 'string', maxLength: 64 }, username: { type: 'string', maxLength: 51 } },
    },
  },
} as const;

export const chatResponseSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    data: { type: 'object', properties: { creditsConsumed: { type: 'integer' }, sessionId: { type: 'string' }, message: { type: 'string' } }, required: ['creditsConsumed', 'sessionId', 'message'] },
  },
  required: ['success', 'data'],
} as const;
