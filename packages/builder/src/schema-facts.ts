/**
 * Facts of the language read from the schema (the single source of truth): enums of sources,
 * methods, operators, timeframes, action types; and the indicator defaults documented in
 * docs/semantics.md (the engine's catalogue: the schema states them only in descriptions).
 */
import { eqlSchema, familyOf, parametersOf, TA_METHODS } from '@eql/core';

type Json = Record<string, unknown>;

const defs = (eqlSchema as unknown as { $defs: Record<string, Json> }).$defs;

function enumAt(...path: string[]): string[] {
  let node: unknown = defs;
  for (const key of path) node = (node as Json | undefined)?.[key];
  return Array.isArray(node) ? node.filter((value): value is string => typeof value === 'string') : [];
}

/** Candle timeframes (`1m` … `1w`). */
export const TIMEFRAMES: readonly string[] = enumAt('timeframe', 'enum');
/** Condition sources. */
export const SOURCES: readonly string[] = enumAt('condition', 'properties', 'source', 'enum');
/** Methods by source. */
export const METHODS: Readonly<Record<string, readonly string[]>> = {
  price: enumAt('priceCondition', 'properties', 'method', 'enum'),
  ta: enumAt('taCondition', 'properties', 'method', 'enum'),
  cron: enumAt('cronCondition', 'properties', 'method', 'enum'),
};
/** Every operator, level and crossing. */
export const OPERATORS: readonly string[] = enumAt('operator', 'enum');
/** Action types. */
export const ACTION_TYPES: readonly string[] = enumAt('action', 'properties', 'type', 'enum');
/** Analysis types of an llm action. */
export const ANALYSIS_TYPES: readonly string[] = enumAt('llmActionParams', 'properties', 'analysisType', 'enum');
/** LLM speeds. */
export const LLM_SPEEDS: readonly string[] = enumAt('llmSpeed', 'enum');

/** Window defaults of each indicator (docs/semantics.md, section 2), from the engine's catalogue. */
export const INDICATOR_DEFAULTS: Readonly<Record<string, Readonly<Record<string, number>>>> = Object.fromEntries(
  TA_METHODS.map((method) => [method, Object.fromEntries(parametersOf(familyOf(method)).map(({ name, fallback }) => [name, fallback]))]),
);

/** Default candle timeframe of indicators. */
export const DEFAULT_TIMEFRAME = '1h';
/** Default window of price statistics (change, high, low, volume) when none is said. */
export const DEFAULT_WINDOW = '24h';
