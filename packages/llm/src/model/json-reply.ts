import type { LlmJudgement, TradeSignal } from '@eql/core';
import { ModelError } from '../chat-model.js';

/**
 * Reading model replies that should be JSON, without trusting them: the first JSON object found
 * (bare, in a code fence, or after some prose), then field by field validation. What cannot be
 * used is dropped; a reply with nothing usable is `ModelError('LLM_EMPTY_REPLY')`.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first balanced `{…}` of a text that parses as a JSON object, or undefined. */
export function findJsonObject(text: string): Json | undefined {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const candidates = fenced ? [fenced[1] as string, text] : [text];
  for (const candidate of candidates) {
    for (let start = candidate.indexOf('{'); start !== -1; start = candidate.indexOf('{', start + 1)) {
      const end = balancedEnd(candidate, start);
      if (end === -1) break;
      try {
        const value: unknown = JSON.parse(candidate.slice(start, end + 1));
        if (isObject(value)) return value;
      } catch {
        // not this one: try the next opening brace
      }
    }
  }
  return undefined;
}

/** Index of the brace closing the one at `start` (strings respected), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return i;
  }
  return -1;
}

function requireObject(text: string, what: string): Json {
  const value = findJsonObject(text);
  if (!value) throw new ModelError('LLM_EMPTY_REPLY', `the language model's ${what} reply holds no JSON object`);
  return value;
}

const finite = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim().replace(/%$/, '')) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
};

/**
 * A judgement: `confidence` (a number or numeric string; a fraction strictly between 0 and 1 with
 * decimals is read as a share, 0.8 → 80) clamped to 0..100 and rounded; `reasoning` kept when a string.
 */
export function parseJudgement(text: string): LlmJudgement {
  const object = requireObject(text, 'judgement');
  let confidence = finite(object.confidence ?? object.score ?? object.probability);
  if (confidence === undefined) throw new ModelError('LLM_EMPTY_REPLY', "the language model's judgement has no numeric confidence");
  if (confidence > 0 && confidence < 1 && !Number.isInteger(confidence)) confidence *= 100;
  const judgement: LlmJudgement = { confidence: Math.round(Math.min(100, Math.max(0, confidence))) };
  const reasoning = object.reasoning ?? object.reason;
  if (typeof reasoning === 'string' && reasoning.trim() !== '') judgement.reasoning = reasoning.trim().slice(0, 1_000);
  return judgement;
}

const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,39}$/;

/** Trade signals: valid side and symbol, positive finite sizes (percent up to 100); at most `max`; others dropped. */
export function parseTrades(value: unknown, max = 5): TradeSignal[] {
  if (!Array.isArray(value)) return [];
  const out: TradeSignal[] = [];
  for (const raw of value) {
    if (!isObject(raw)) continue;
    const side = typeof raw.side === 'string' ? raw.side.toLowerCase() : '';
    if (side !== 'buy' && side !== 'sell') continue;
    const symbol = typeof raw.symbol === 'string' ? raw.symbol.trim().replace(/^\$/, '') : '';
    if (!SYMBOL.test(symbol)) continue;
    const signal: TradeSignal = { side, symbol };
    for (const key of ['price', 'size', 'amountUsd', 'positionSizePercent'] as const) {
      const number = finite(raw[key]);
      if (number !== undefined && number > 0 && (key !== 'positionSizePercent' || number <= 100)) signal[key] = number;
    }
    if (typeof raw.reason === 'string' && raw.reason.trim() !== '') signal.reason = raw.reason.trim().slice(0, 300);
    out.push(signal);
    if (out.length >= max) break;
  }
  return out;
}

/** An action analysis: `response` (Markdown) and trades. A reply that is not JSON is taken as the response, with no trades. */
export function parseAnalysis(text: string): { response: string; trades: TradeSignal[]; structured: boolean } {
  const object = findJsonObject(text);
  if (!object) return { response: text.trim(), trades: [], structured: false };
  const response = typeof object.response === 'string' ? object.response.trim() : typeof object.analysis === 'string' ? object.analysis.trim() : '';
  if (response === '') throw new ModelError('LLM_EMPTY_REPLY', "the language model's analysis has no response text");
  return { response, trades: parseTrades(object.trades), structured: true };
}

/** Groups `{text, ids}` from `events` / `narratives` arrays, accepting the usual spellings of the keys. */
export function parseGroups(text: string, listKey: 'events' | 'narratives', textKey: 'summary' | 'narrative'): Array<{ text: string; ids: string[] }> {
  const object = requireObject(text, listKey);
  const list = object[listKey];
  if (!Array.isArray(list)) throw new ModelError('LLM_EMPTY_REPLY', `the language model's reply has no "${listKey}" list`);
  const out: Array<{ text: string; ids: string[] }> = [];
  for (const raw of list) {
    if (!isObject(raw)) continue;
    const body = raw[textKey] ?? raw.text ?? raw.summary ?? raw.narrative;
    const ids = raw.tweetIds ?? raw.tweet_ids ?? raw.ids;
    if (typeof body !== 'string' || body.trim() === '' || !Array.isArray(ids)) continue;
    out.push({ text: body.trim().slice(0, 800), ids: ids.filter((id): id is string | number => typeof id === 'string' || typeof id === 'number').map(String) });
  }
  return out;
}
