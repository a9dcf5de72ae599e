import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseIngestLines, type ParsedLines } from './ingest-items.js';
import type { IngestReport } from './market-data.js';
import type { SqliteMarketData } from './sqlite-market-data.js';

const BATCH_LINES = 5_000;

async function eachBatch(path: string, use: (parsed: ParsedLines) => void | boolean): Promise<void> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let batch: string[] = [];
  let first = 1;
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    batch.push(line);
    if (batch.length === BATCH_LINES) {
      if (use(parseIngestLines(batch.join('\n'), first)) === false) {
        lines.close();
        return;
      }
      batch = [];
      first = lineNumber + 1;
    }
  }
  if (batch.length > 0) use(parseIngestLines(batch.join('\n'), first));
}

/** What {@link ingestFile} did: the counts written, the problems found (then nothing was written), and the items read. */
export interface IngestFileResult {
  report: IngestReport;
  /** Lines that could not be used (at most `maxProblems`); when there are any, nothing was written. */
  problems: ParsedLines['problems'];
  /** How many items the good lines held (blank, comment and skipped recording lines not counted). */
  lines: number;
}

/**
 * Ingests a JSON Lines file, all or nothing: a first pass checks every line (streaming, so files larger
 * than memory are fine); when all are good, a second pass writes them in one transaction.
 */
export async function ingestFile(market: SqliteMarketData, path: string, options: { maxProblems?: number; onProgress?: (items: number) => void } = {}): Promise<IngestFileResult> {
  const maxProblems = options.maxProblems ?? 50;
  const problems: ParsedLines['problems'] = [];
  let items = 0;
  await eachBatch(path, (parsed) => {
    items += parsed.items.length;
    problems.push(...parsed.problems.slice(0, maxProblems - problems.length));
    return problems.length < maxProblems;
  });
  const report: IngestReport = { posts: 0, news: 0, telegram: 0, accounts: 0, duplicates: 0 };
  if (problems.length > 0) return { report, problems, lines: items };
  let written = 0;
  market.db.exec('BEGIN IMMEDIATE');
  try {
    await eachBatch(path, (parsed) => {
      const batch = market.ingest(parsed.items);
      for (const field of ['posts', 'news', 'telegram', 'accounts', 'duplicates'] as const) report[field] += batch[field];
      written += parsed.items.length;
      options.onProgress?.(written);
    });
    market.db.exec('COMMIT');
  } catch (error) {
    if (market.db.inTransaction) market.db.exec('ROLLBACK');
    throw error;
  }
  return { report, problems, lines: items };
}
