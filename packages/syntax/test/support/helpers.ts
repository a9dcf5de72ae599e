import { joinPointer } from '@eql/core';
import fc from 'fast-check';
import { MEASURES } from '../../src/index.js';
import { queryRequest } from '../../../../test/support/arbitraries.js';

/** Every leaf (scalar) of a JSON value with its pointer. */
export function leafPointers(value: unknown, pointer = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((item, index) => leafPointers(item, joinPointer(pointer, index)));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => leafPointers(item, joinPointer(pointer, key)));
  }
  return [[pointer, value]];
}

/** Values the text spells with a word of its own (the measure, the action keyword, the operator). */
const DERIVED: Record<string, (slice: string, value: unknown) => boolean> = {
  source: (slice, value) => slice === value || MEASURES.get(slice)?.source === value || ['tweet', 'news', 'llm', 'at', 'every'].includes(slice),
  method: (slice, value) => slice === value || MEASURES.get(slice)?.method === value || (slice === 'at' && value === 'once') || (slice === 'every' && value === 'every'),
  type: (slice, value) => slice === value || slice === { market_order: 'market', limit_order: 'limit', messenger_bot: 'bot' }[String(value)],
  operator: (slice, value) => slice === value || slice.replace(/\s+/, '_') === value,
};

/** Whether the text slice mapped to `pointer` is the token(s) that spell `value`. */
export function sliceDenotes(slice: string, value: unknown, pointer: string): boolean {
  const key = pointer.slice(pointer.lastIndexOf('/') + 1);
  const derived = DERIVED[key];
  if (derived !== undefined && typeof value === 'string' && derived(slice, value)) return true;
  if (typeof value === 'string') {
    if (slice === value || slice === `@${value}`) return true;
    try {
      return JSON.parse(slice) === value;
    } catch {
      return false;
    }
  }
  if (typeof value === 'number') return Number(slice.replace(/^\$/, '').replace(/%$/, '')) === value;
  if (typeof value === 'boolean' || value === null) return slice === String(value);
  return false;
}

// ------------------------------------------------------------------ arbitraries beyond the shared ones

const text = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.constantFrom('when', 'then', 'as', '"quoted"', 'a\\b', '\n\t', '# not a comment', '1h', '@x', 'BTC'));
const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.constantFrom(-0, 0.1, 1e21, 5e-324, 123456789.123));
const payload = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });

type Request = { title?: string; description?: string; query: Record<string, unknown> };

/**
 * Requests of the shared arbitrary with strings, numbers and payloads replaced by arbitrary ones,
 * and optional arguments given with their default values: the printer must keep them all exactly.
 * (Not all of these validate: the laws of the text form do not depend on validity.)
 */
export const stressRequest: fc.Arbitrary<Request> = fc
  .tuple(
    queryRequest,
    fc.record({
      title: text,
      message: text,
      value: number,
      extra: payload,
      defaults: fc.boolean(),
      timeframe: fc.constantFrom('1h', '4h'),
      confidence: fc.integer({ min: 1, max: 100 }),
      stepId: fc.constantFrom('buy', 'sell', 'order', 'notify', 'when', '1st', 'a b', 'step-1.a', 'é', 'of'),
      symbol: fc.constantFrom('1000PEPE', 'on', 'BTC/USDT:USDT', 'x y', 'true', 'BTC-PERP', '"q"'),
      chat: fc.oneof(fc.integer(), fc.constantFrom('@chan', '-100123', 'plain', 'two words')),
      exit: fc.oneof(fc.record({ price: number }), fc.record({ percent: number }), fc.constant({ price: 1, percent: 2 }), fc.constant({})),
      holdFor: fc.oneof(fc.constantFrom('5m', '1.5h', 'soon', '1h30m'), fc.integer({ min: 1, max: 1000 })),
    }),
  )
  .map(([base, pick]) => {
    const request = structuredClone(base) as Request;
    request.title = pick.title;
    if (pick.defaults) request.description = pick.message;
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      const record = node as Record<string, unknown> & { args?: Record<string, unknown> };
      for (const key of ['AND', 'OR']) if (Array.isArray(record[key])) (record[key] as unknown[]).forEach(visit);
      if (record.source === 'price' && typeof record.value === 'number') record.value = pick.value;
      if (record.source === 'price' && record.args && !pick.defaults) record.args.symbol = pick.symbol;
      if (record.source === 'ta' && record.args && pick.defaults) record.args.timeframe = pick.timeframe;
      if ((record.source === 'tweet' || record.source === 'news') && record.args) {
        record.args.text = pick.message;
        record.args.minConfidence = pick.defaults ? 80 : pick.confidence;
      }
      if (record.source === 'llm' && pick.defaults) {
        record.method = 'athena_condition';
        if (record.args) record.args.speed = 'fast';
      }
      if (record.holdFor !== undefined) record.holdFor = pick.holdFor;
    };
    visit(request.query.conditions);
    const actions = request.query.actions as Array<{ stepId: string; type: string; params: Record<string, unknown> }>;
    actions.forEach((action, index) => {
      action.stepId = index === 0 ? pick.stepId : action.stepId;
      if (action.type === 'notify') action.params.message = pick.message;
      if (action.type === 'webhook') action.params.payload = pick.extra;
      if (action.type === 'messenger_bot') action.params.chatId = pick.chat;
      if (action.type === 'llm' && pick.defaults) action.params.analysisType = 'chat';
      if (action.type === 'market_order' || action.type === 'limit_order') {
        action.params.stopLoss = pick.exit;
        if (!pick.defaults) action.params.symbol = pick.symbol;
      }
    });
    return request;
  });

/** Text edits: delete, duplicate or insert characters and tokens at arbitrary places. */
export const textMutation = fc
  .array(fc.tuple(fc.nat(), fc.nat({ max: 8 }), fc.constantFrom('', ' ', '"', '(', ')', '[', ']', '{', '}', ',', 'of', 'all of', 'then', 'when', '#', '\n', '@', '$', '%', '>', 'crosses', 'x', '9', '1h', 'as', ':')), { minLength: 1, maxLength: 4 })
  .map((edits) => (source: string) => {
    let text = source;
    for (const [at, length, insert] of edits) {
      const start = text.length === 0 ? 0 : at % text.length;
      text = text.slice(0, start) + insert + text.slice(start + (insert === '' ? Math.max(1, length) : length % 3));
    }
    return text;
  });
