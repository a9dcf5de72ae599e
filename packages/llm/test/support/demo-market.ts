import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseIngestLines, SqliteMarketData, type IngestItem } from '@eql/market-data';

/** The end of the seeded demo dataset (fixtures/mentions/demo.jsonl): 28 days of data before it. */
export const DEMO_END = Date.parse('2026-11-16T00:00:00Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

let cached: IngestItem[] | undefined;

/** The items of the seeded demo dataset (parsed once per test file). */
export function demoItems(): IngestItem[] {
  if (!cached) {
    const { items, problems } = parseIngestLines(readFileSync(fileURLToPath(new URL('../../../../fixtures/mentions/demo.jsonl', import.meta.url)), 'utf8'));
    if (problems.length > 0) throw new Error(`demo.jsonl: ${problems.length} invalid lines`);
    cached = items;
  }
  return cached;
}

/** An in-memory SQLite market holding the demo dataset (its times unshifted: "now" is DEMO_END). */
export function demoMarket(): SqliteMarketData {
  const market = new SqliteMarketData(':memory:');
  market.ingestNow(demoItems());
  return market;
}
