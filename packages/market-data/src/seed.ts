import { readFileSync } from 'node:fs';
import { parseIngestLines } from './ingest-items.js';
import type { IngestItem } from './market-data.js';
import type { SqliteMarketData } from './sqlite-market-data.js';

const MINUTE = 60_000;
/** A seed is kept while its shift is within this of the wanted one (restarts within an hour keep it). */
const RESEED_AFTER_MS = 3_600_000;

/** What {@link seedMarketData} did: kept the seeded dataset or seeded it (again), how many items, and by how much its times were shifted. */
export interface SeedResult {
  /** What was done: nothing (the seed is recent), or seeded (again). */
  action: 'kept' | 'seeded';
  /** Items in the dataset file. */
  items: number;
  /** How far the dataset's times were moved (ms). */
  shiftMs: number;
}

function shifted(item: IngestItem, shiftMs: number): IngestItem {
  switch (item.kind) {
    case 'post':
      return { ...item, mentionedAt: item.mentionedAt + shiftMs };
    case 'news':
      return { ...item, publishedAt: item.publishedAt + shiftMs };
    case 'telegram':
      return { ...item, postedAt: item.postedAt + shiftMs };
    case 'account':
      return item;
  }
}

/** The newest instant of a dataset. */
function endOf(items: readonly IngestItem[]): number {
  let end = 0;
  for (const item of items) {
    const at = item.kind === 'post' ? item.mentionedAt : item.kind === 'news' ? item.publishedAt : item.kind === 'telegram' ? item.postedAt : 0;
    if (at > end) end = at;
  }
  return end;
}

/**
 * Loads the demo dataset so that it ends now (whole minutes): time windows such as "the last 24 hours"
 * then find data on a fresh host. Seeded items are marked; when the host starts again more than an hour
 * later, they are replaced by the same dataset shifted to the new start, and items ingested by users
 * stay as they are. Throws when the file has invalid lines (a broken fixture is a bug, not data).
 * Synchronous, for setup (the host seeds before it serves): it throws while an ingest runs on the store.
 */
export function seedMarketData(market: SqliteMarketData, path: string, now: number): SeedResult {
  const { items, problems } = parseIngestLines(readFileSync(path, 'utf8'));
  if (problems.length > 0) {
    const first = problems[0];
    throw new Error(`${path}: ${problems.length} invalid line(s), first at line ${String(first?.line)}: ${String(first?.message)}`);
  }
  const shiftMs = Math.floor((now - endOf(items)) / MINUTE) * MINUTE;
  const previous = market.meta('seed');
  if (previous) {
    const { path: seededPath, shiftMs: seededShift } = JSON.parse(previous) as { path: string; shiftMs: number };
    if (seededPath === path && Math.abs(seededShift - shiftMs) < RESEED_AFTER_MS) return { action: 'kept', items: items.length, shiftMs: seededShift };
    market.removeSeeded();
  }
  market.ingestNow(items.map((item) => shifted(item, shiftMs)), 'seed');
  market.setMeta('seed', JSON.stringify({ path, shiftMs, at: new Date(now).toISOString() }));
  return { action: 'seeded', items: items.length, shiftMs };
}
