import { setImmediate as nextTurn } from 'node:timers/promises';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ingestSchema } from './generated/ingest-schema.js';
import type { IngestItem } from './market-data.js';

/** The ingest item schema (schemas/ingest.schema.json, generated into a module), the single definition of what can be ingested. */
export { ingestSchema };

let validator: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: false, discriminator: true, strict: true, strictRequired: false, useDefaults: true, allowUnionTypes: true });
    addFormats.default(ajv, ['date-time']);
    validator = ajv.compile(ingestSchema);
  }
  return validator;
}

/** Why an ingest item was refused: where in the item (a JSON pointer) and what is wrong. */
export interface IngestProblem {
  /** JSON pointer inside the item. */
  path: string;
  message: string;
}

/** The result of {@link parseIngestItem}: the item ready to ingest, or the first problem found. */
export type ParsedIngestItem = { ok: true; item: IngestItem } | { ok: false; problem: IngestProblem };

const toMs = (value: unknown): number => (typeof value === 'number' ? value : Date.parse(String(value)));

/**
 * A line of a recording (`{at, source: 'tweet' | 'news', ...}`, see fixtures/recordings) read as an
 * ingest item, so a recording's posts and news can be ingested as they are.
 */
function fromRecording(value: Record<string, unknown>): Record<string, unknown> | undefined {
  if (value.source === 'tweet' && typeof value.username === 'string') {
    const username = value.username.replace(/^@/, '');
    const tweetId = typeof value.tweetId === 'string' ? value.tweetId : `rec-${String(value.at)}-${username}`;
    return { kind: 'post', tweetId, link: `https://x.com/${username}/status/${tweetId}`, username, text: value.text, mentionedAt: value.at };
  }
  if (value.source === 'news' && typeof value.url === 'string') {
    const text = typeof value.text === 'string' ? value.text : '';
    return { kind: 'news', id: value.url, url: value.url, title: text.slice(0, 500) || value.url, text, source: typeof value.sourceName === 'string' ? value.sourceName : '', publishedAt: value.at };
  }
  return undefined;
}

function describe(error: ErrorObject): IngestProblem {
  const where = error.instancePath || '/';
  if (error.keyword === 'additionalProperties') return { path: where, message: `unknown field "${String((error.params as { additionalProperty: string }).additionalProperty)}"` };
  if (error.keyword === 'discriminator') return { path: '/kind', message: 'kind must be one of post, news, telegram, account' };
  return { path: where, message: `${where === '/' ? 'the item' : where} ${error.message ?? 'is invalid'}` };
}

/**
 * Checks one item against the schema (filling defaults) and turns its times into epoch
 * milliseconds. Recording lines of posts and news are accepted too. Never throws.
 */
export function parseIngestItem(value: unknown): ParsedIngestItem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: { path: '/', message: 'an item must be a JSON object' } };
  const record = value as Record<string, unknown>;
  const candidate = structuredClone(record.kind === undefined && record.source !== undefined ? (fromRecording(record) ?? record) : record);
  const validate = compiled();
  if (!validate(candidate)) {
    const [first] = validate.errors ?? [];
    return { ok: false, problem: first ? describe(first) : { path: '/', message: 'invalid item' } };
  }
  const item = candidate;
  for (const field of ['mentionedAt', 'publishedAt', 'postedAt']) {
    if (item[field] === undefined) continue;
    const ms = toMs(item[field]);
    if (!Number.isFinite(ms) || ms < 0) return { ok: false, problem: { path: `/${field}`, message: `${field} is not a valid instant` } };
    item[field] = ms;
  }
  if (typeof item.username === 'string') item.username = item.username.replace(/^@/, '');
  return { ok: true, item: item as unknown as IngestItem };
}

/** The result of {@link parseIngestValues}: the good items, and a problem for each bad one (by index), at most `maxProblems`. */
export interface ParsedValues {
  items: IngestItem[];
  problems: Array<IngestProblem & { index: number }>;
}

/**
 * {@link parseIngestItem} on each value (a request's items), `batchSize` at a time (default 500, a few
 * milliseconds of work) with a turn of the event loop between batches, so a large request does not
 * hold the loop. Keeps the first `maxProblems` problems (default all).
 */
export async function parseIngestValues(values: readonly unknown[], options: { batchSize?: number; maxProblems?: number } = {}): Promise<ParsedValues> {
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new TypeError(`batchSize must be a positive integer, not ${batchSize}`);
  const maxProblems = options.maxProblems ?? Infinity;
  const items: IngestItem[] = [];
  const problems: ParsedValues['problems'] = [];
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0 && index % batchSize === 0) await nextTurn();
    const parsed = parseIngestItem(values[index]);
    if (parsed.ok) items.push(parsed.item);
    else if (problems.length < maxProblems) problems.push({ index, ...parsed.problem });
  }
  return { items, problems };
}

/** The result of {@link parseIngestLines}: the items of the good lines, and a problem for each bad line. */
export interface ParsedLines {
  items: IngestItem[];
  /** 1-based line numbers of the lines that could not be used. */
  problems: Array<IngestProblem & { line: number }>;
}

/**
 * Parses JSON Lines text. Blank lines and `//` comment lines (as in recordings) are skipped; price
 * and llm lines of a recording are skipped too (they are not market data of this store).
 */
export function parseIngestLines(text: string, firstLine = 1): ParsedLines {
  const items: IngestItem[] = [];
  const problems: ParsedLines['problems'] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('//')) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push({ line: firstLine + index, path: '/', message: `not JSON: ${(error as Error).message}` });
      return;
    }
    const source = (value as { source?: unknown } | null)?.source;
    if ((value as { kind?: unknown } | null)?.kind === undefined && (source === 'price' || source === 'llm')) return;
    const parsed = parseIngestItem(value);
    if (parsed.ok) items.push(parsed.item);
    else problems.push({ line: firstLine + index, ...parsed.problem });
  });
  return { items, problems };
}
