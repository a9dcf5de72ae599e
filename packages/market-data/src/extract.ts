import { base58ByteLength } from './base58.js';
import type { ContractMention } from './market-data.js';

/** Names people write instead of the ticker. */
const TOKEN_NAMES: Readonly<Record<string, string>> = {
  bitcoin: 'BTC',
  ethereum: 'ETH',
  ether: 'ETH',
  solana: 'SOL',
  dogecoin: 'DOGE',
  ripple: 'XRP',
  cardano: 'ADA',
  chainlink: 'LINK',
  avalanche: 'AVAX',
  polkadot: 'DOT',
  litecoin: 'LTC',
  hyperliquid: 'HYPE',
  arbitrum: 'ARB',
  optimism: 'OP',
  polygon: 'POL',
  tron: 'TRX',
  toncoin: 'TON',
  sui: 'SUI',
  aptos: 'APT',
  pepe: 'PEPE',
};

/** Tickers common enough to count when written without `$` (as a whole upper-case word). */
const BARE_TICKERS = new Set(['BTC', 'ETH', 'SOL', 'DOGE', 'XRP', 'ADA', 'LINK', 'AVAX', 'DOT', 'LTC', 'HYPE', 'ARB', 'BNB', 'SUI', 'APT', 'TON', 'TRX', 'PEPE', 'WIF', 'BONK']);

/** Chains named in a text, for EVM addresses (which do not say their chain). */
const CHAIN_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\b(base|basechain|on base)\b/i, 'base'],
  [/\b(bsc|bnb chain|bnbchain|binance smart chain)\b/i, 'bsc'],
  [/\b(arbitrum|arb one)\b/i, 'arbitrum'],
  [/\b(polygon|matic)\b/i, 'polygon'],
  [/\b(optimism)\b/i, 'optimism'],
  [/\b(avalanche|avax c-chain)\b/i, 'avalanche'],
  [/\b(ethereum|eth mainnet|mainnet|erc-?20)\b/i, 'ethereum'],
];

const CASHTAG = /(?<![\w$])\$([A-Za-z][A-Za-z0-9]{0,11})(?![\w])/g;
const WORD = /[A-Za-z][A-Za-z0-9]*/g;
const EVM_ADDRESS = /(?<![\w])0x[0-9a-fA-F]{40}(?![\w])/g;
const BASE58_CANDIDATE = /(?<![\w])[1-9A-HJ-NP-Za-km-z]{32,44}(?![\w])/g;

export interface TokenMention {
  token: string;
  /** How prominently the token appears: 2 per cashtag, 1 per name or bare ticker. */
  relevance: number;
}

/** Normalizes a ticker as users type it (`$btc`, `BTC`, ` sol `) to the stored form (`BTC`), or undefined. */
export function normalizeToken(input: string): string | undefined {
  const trimmed = input.trim().replace(/^\$/, '');
  if (!/^[A-Za-z][A-Za-z0-9]{0,11}$/.test(trimmed)) return undefined;
  return trimmed.toUpperCase();
}

/** The tokens a text mentions, each once, in order of first appearance, with their relevance. */
export function extractTokens(text: string): TokenMention[] {
  const found = new Map<string, number>();
  const add = (token: string, weight: number): void => {
    found.set(token, (found.get(token) ?? 0) + weight);
  };
  for (const match of text.matchAll(CASHTAG)) add((match[1] ?? '').toUpperCase(), 2);
  const withoutCashtags = text.replace(CASHTAG, ' ');
  for (const match of withoutCashtags.matchAll(WORD)) {
    const word = match[0];
    const named = TOKEN_NAMES[word.toLowerCase()];
    if (named) add(named, 1);
    else if (BARE_TICKERS.has(word) && word === word.toUpperCase()) add(word, 1);
  }
  return [...found].map(([token, relevance]) => ({ token, relevance }));
}

/** The chain a text names for its EVM addresses, else `evm`. */
function evmChainOf(text: string): string {
  for (const [pattern, chain] of CHAIN_WORDS) if (pattern.test(text)) return chain;
  return 'evm';
}

/**
 * Contract addresses in a text: EVM (0x + 40 hex, lower-cased; chain from the words around it) and
 * Solana (base58 that decodes to exactly 32 bytes, with a digit and both cases, so words do not count).
 */
export function extractContracts(text: string): ContractMention[] {
  const found = new Map<string, ContractMention>();
  let evmChain: string | undefined;
  for (const match of text.matchAll(EVM_ADDRESS)) {
    const address = match[0].toLowerCase();
    if (/^0x0{40}$/.test(address)) continue;
    evmChain ??= evmChainOf(text);
    if (!found.has(address)) found.set(address, { address, chain: evmChain });
  }
  for (const match of text.matchAll(BASE58_CANDIDATE)) {
    const candidate = match[0];
    if (!/\d/.test(candidate) || !/[a-z]/.test(candidate) || !/[A-Z]/.test(candidate)) continue;
    if (base58ByteLength(candidate) !== 32) continue;
    if (!found.has(candidate)) found.set(candidate, { address: candidate, chain: 'solana' });
  }
  return [...found.values()];
}

/** Whether a string is a contract address we recognize, and its normal form. */
export function normalizeContract(input: string): ContractMention | undefined {
  const [found] = extractContracts(input.trim());
  return found && (found.address === input.trim().toLowerCase() || found.address === input.trim()) ? found : undefined;
}
