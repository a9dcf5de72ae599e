import {
  type LlmVerdictObservation,
  type NewsObservation,
  type Observation,
  type PriceObservation,
  type TweetObservation,
  baseAsset,
} from './observations.js';
import { parseIsoTime } from '../util/instant.js';

/**
 * Recordings: observations as JSON Lines, for replays (`eql preview --data`) and tests.
 *
 * - One JSON object a line. Blank lines and lines whose first non-blank characters are `//` are
 *   skipped; a byte order mark at the start and `\r\n` line ends are accepted.
 * - Each object has `at`, an ISO 8601 date and time with a zone (`2026-01-05T00:00:00Z`,
 *   `2026-01-05T01:00:00.250+01:00`), and `source`, one of `price`, `tweet`, `news`, `llm`, with the
 *   fields of the observation types (see observations.ts). Unknown fields are ignored; a known optional
 *   field may be `null`, which means absent.
 * - Lines are ordered by `at`; equal times are allowed and keep their order.
 * - A recording holds at least one observation.
 *
 * `serializeRecording` writes the canonical form: one line per observation, keys in a fixed order
 * (`at`, `source`, then the fields of the source in the order of the interfaces), `at` in UTC with
 * milliseconds only when they are not zero.
 */

/** A parsed recording: its observations in time order and the epoch ms of the first and the last. */
export interface Recording {
  observations: Observation[];
  start: number;
  end: number;
}

/** The assets a recording has prices of (`BTC` for `BTC/USDT` and `BTC-PERP`), sorted: what a replay of it serves. */
export function pricedAssets(observations: readonly Observation[]): string[] {
  const assets = new Set<string>();
  for (const observation of observations) if (observation.source === 'price') assets.add(baseAsset(observation.symbol));
  return [...assets].sort();
}

/**
 * What `parseRecording` (and `serializeRecording`, for an observation it cannot write) throws.
 * `line` is 1-based: the line of the text, or the position of the observation in the array given
 * to `serializeRecording`. The message starts with `line N: `.
 */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  readonly line: number;
  /** The message without the `line N: ` prefix. */
  readonly reason: string;

  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
    this.line = line;
    this.reason = reason;
  }
}

export { parseIsoTime };

const SOURCES = ['price', 'tweet', 'news', 'llm'] as const;
/** The range of a JavaScript Date, in epoch ms. */
const MAX_TIME = 8.64e15;

// ---------------------------------------------------------------- parsing

/** Parses a recording; throws `RecordingError` (and nothing else) on any problem. */
export function parseRecording(text: string): Recording {
  if (typeof text !== 'string') throw new RecordingError(1, 'a recording must be text');
  const lines = text.split('\n');
  const observations: Observation[] = [];
  let previousAt = -Infinity;
  let previousLine = 0;
  for (let index = 0; index < lines.length; index += 1) {
    const lineNumber = index + 1;
    let line = lines[index] ?? '';
    if (index === 0 && line.startsWith('\uFEFF')) line = line.slice(1);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('//')) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      throw new RecordingError(lineNumber, `not valid JSON: ${quote(trimmed)}`);
    }
    const observation = toObservation(value, lineNumber);
    if (observation.at < previousAt) {
      throw new RecordingError(
        lineNumber,
        `observations must be ordered by at: ${isoTime(observation.at)} is before ${isoTime(previousAt)} (line ${previousLine})`,
      );
    }
    previousAt = observation.at;
    previousLine = lineNumber;
    observations.push(observation);
  }
  const first = observations[0];
  const last = observations[observations.length - 1];
  if (first === undefined || last === undefined) {
    throw new RecordingError(Math.max(1, lines.length), 'the recording holds no observations');
  }
  return { observations, start: first.at, end: last.at };
}

/** A field check failed; turned into a RecordingError with the line by `toObservation`. */
class FieldError extends Error {
  constructor(
    /** The field at fault (`''`: the value itself is no object). */
    readonly field: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Why a value is not an observation: the field at fault (`''` when the value is no object) and the reason, quoting at most 40 characters of it. */
export interface ObservationProblem {
  field: string;
  reason: string;
}

/** What {@link checkObservation} finds: the observation (with its known fields only), or why the value is none. */
export type ObservationCheck = { observation: Observation; problem?: undefined } | { observation?: undefined; problem: ObservationProblem };

/**
 * Checks a value as an observation as sources emit it and the market bus carries it: the rules of a
 * recording line (see the top of this file), except that `at` is an integer epoch ms time within a
 * Date's range (what `serializeRecording` accepts), not ISO text. Never throws.
 */
export function checkObservation(value: unknown): ObservationCheck {
  try {
    return { observation: readObservation(value, readEpochTime) };
  } catch (error) {
    if (error instanceof FieldError) return { problem: { field: error.field, reason: error.reason } };
    throw error;
  }
}

type Fields = Record<string, unknown>;

function toObservation(value: unknown, line: number): Observation {
  try {
    return readObservation(value, readTime);
  } catch (error) {
    if (error instanceof FieldError) throw new RecordingError(line, error.reason);
    throw error;
  }
}

/** An observation of a JSON value, `at` read by `readAt` (ISO text in a recording, epoch ms in memory); throws FieldError. */
function readObservation(value: unknown, readAt: (value: unknown) => number): Observation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FieldError('', `an observation must be a JSON object, not ${describeType(value)}`);
  }
  const fields = value as Fields;
  const at = readAt(own(fields, 'at'));
  const source = own(fields, 'source');
  switch (source) {
    case 'price': {
      const observation: PriceObservation = {
        at,
        source,
        symbol: requiredText(fields, 'symbol'),
        price: requiredNumber(fields, 'price', (n) => n > 0, 'a positive number'),
      };
      const volume = optionalNumber(fields, 'volume', (n) => n >= 0, 'a number >= 0');
      if (volume !== undefined) observation.volume = volume;
      const exchange = optionalText(fields, 'exchange');
      if (exchange !== undefined) observation.exchange = exchange;
      return observation;
    }
    case 'tweet': {
      const username = requiredText(fields, 'username');
      if (username.includes('@')) throw new FieldError('username', `username must be given without @ (${quote(username)})`);
      const observation: TweetObservation = {
        at,
        source,
        username,
        text: requiredString(fields, 'text'),
        tweetId: requiredText(fields, 'tweetId'),
      };
      const url = optionalText(fields, 'url');
      if (url !== undefined) observation.url = url;
      return observation;
    }
    case 'news': {
      const observation: NewsObservation = { at, source, text: requiredText(fields, 'text') };
      const url = optionalText(fields, 'url');
      if (url !== undefined) observation.url = url;
      const id = optionalText(fields, 'id');
      if (id !== undefined) observation.id = id;
      return observation;
    }
    case 'llm': {
      const observation: LlmVerdictObservation = {
        at,
        source,
        query: requiredText(fields, 'query'),
        confidence: requiredNumber(fields, 'confidence', (n) => n >= 0 && n <= 100, 'a number from 0 to 100'),
      };
      const reasoning = optionalString(fields, 'reasoning');
      if (reasoning !== undefined) observation.reasoning = reasoning;
      return observation;
    }
    case undefined:
      throw new FieldError('source', `source is missing (one of ${SOURCES.join(', ')})`);
    default:
      throw new FieldError('source', `source must be one of ${SOURCES.join(', ')}, not ${describeValue(source)}`);
  }
}

/** An own property, so names such as `constructor` never reach Object.prototype. */
function own(fields: Fields, key: string): unknown {
  return Object.hasOwn(fields, key) ? fields[key] : undefined;
}

function requiredString(fields: Fields, key: string): string {
  const value = own(fields, key);
  if (value === undefined) throw new FieldError(key, `${key} is missing`);
  if (typeof value !== 'string') throw new FieldError(key, `${key} must be a string, not ${describeValue(value)}`);
  return value;
}

/** A string with at least one non-blank character. */
function requiredText(fields: Fields, key: string): string {
  const value = requiredString(fields, key);
  if (value.trim() === '') throw new FieldError(key, `${key} must not be empty`);
  return value;
}

function optionalString(fields: Fields, key: string): string | undefined {
  const value = own(fields, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new FieldError(key, `${key} must be a string, not ${describeValue(value)}`);
  return value;
}

function optionalText(fields: Fields, key: string): string | undefined {
  const value = optionalString(fields, key);
  if (value !== undefined && value.trim() === '') throw new FieldError(key, `${key} must not be empty`);
  return value;
}

function requiredNumber(fields: Fields, key: string, ok: (n: number) => boolean, what: string): number {
  const value = own(fields, key);
  if (value === undefined) throw new FieldError(key, `${key} is missing (${what})`);
  return checkNumber(key, value, ok, what);
}

function optionalNumber(fields: Fields, key: string, ok: (n: number) => boolean, what: string): number | undefined {
  const value = own(fields, key);
  if (value === undefined || value === null) return undefined;
  return checkNumber(key, value, ok, what);
}

function checkNumber(key: string, value: unknown, ok: (n: number) => boolean, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) {
    throw new FieldError(key, `${key} must be ${what}, not ${describeValue(value)}`);
  }
  // -0 is 0: JSON writes it so, and an observation checked in memory must equal its recorded line.
  return value === 0 ? 0 : value;
}

// ---------------------------------------------------------------- times

/** `at` of a recording line: ISO 8601 text with a zone. */
function readTime(value: unknown): number {
  if (value === undefined) throw new FieldError('at', 'at is missing (an ISO 8601 time with a zone, such as 2026-01-05T00:00:00Z)');
  if (typeof value !== 'string') {
    throw new FieldError('at', `at must be an ISO 8601 time string with a zone, not ${describeValue(value)}`);
  }
  const time = parseIsoTime(value);
  if (time === undefined) {
    throw new FieldError('at', `at must be an ISO 8601 time with a zone, such as 2026-01-05T00:00:00Z, not ${quote(value)}`);
  }
  return time;
}

/** `at` of an observation in memory: an integer epoch ms time within a Date's range (whole ms, as a recording's times are). */
function readEpochTime(value: unknown): number {
  if (value === undefined) throw new FieldError('at', 'at is missing (an integer epoch ms time)');
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_TIME) {
    throw new FieldError('at', `at must be an integer epoch ms time, not ${describeValue(value)}`);
  }
  return value;
}

/** The canonical text of an epoch ms time: UTC, milliseconds only when not zero. */
function isoTime(at: number): string {
  if (!Number.isFinite(at) || Math.abs(at) > MAX_TIME) return String(at);
  const text = new Date(at).toISOString();
  return text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
}

// ---------------------------------------------------------------- serializing

/**
 * Writes observations as a recording (the canonical form, one line each with a final newline), so
 * that `parseRecording(serializeRecording(x))` gives back `x` (fields outside the observation types
 * are left out). Throws `RecordingError` (line = 1-based position in the array) for an observation
 * that would not parse back: `at` not an integer epoch ms of a Date, a field out of its range, or
 * observations out of time order.
 */
export function serializeRecording(observations: readonly Observation[]): string {
  let text = '';
  let previousAt = -Infinity;
  observations.forEach((observation, index) => {
    const line = index + 1;
    const at = toEpochTime(observation.at, line);
    if (at < previousAt) {
      throw new RecordingError(line, `observations must be ordered by at: ${isoTime(at)} is before ${isoTime(previousAt)}`);
    }
    previousAt = at;
    const record = toRecord(observation, isoTime(at));
    // The same checks as parsing, so whatever is written reads back.
    toObservation(record, line);
    text += `${JSON.stringify(record)}\n`;
  });
  return text;
}

function toEpochTime(value: unknown, line: number): number {
  try {
    return readEpochTime(value);
  } catch (error) {
    if (error instanceof FieldError) throw new RecordingError(line, error.reason);
    throw error;
  }
}

/** The JSON object of a line, keys in the canonical order, absent optional fields left out. */
function toRecord(observation: Observation, at: string): Fields {
  const record: Fields = { at, source: observation.source };
  const put = (key: string, value: unknown) => {
    if (value !== undefined) record[key] = value;
  };
  switch (observation.source) {
    case 'price':
      put('symbol', observation.symbol);
      put('price', observation.price);
      put('volume', observation.volume);
      put('exchange', observation.exchange);
      break;
    case 'tweet':
      put('username', observation.username);
      put('text', observation.text);
      put('tweetId', observation.tweetId);
      put('url', observation.url);
      break;
    case 'news':
      put('text', observation.text);
      put('url', observation.url);
      put('id', observation.id);
      break;
    case 'llm':
      put('query', observation.query);
      put('confidence', observation.confidence);
      put('reasoning', observation.reasoning);
      break;
  }
  return record;
}

// ---------------------------------------------------------------- messages

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A short rendering of a value for a message. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return describeType(value);
}

function quote(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(shown);
}
