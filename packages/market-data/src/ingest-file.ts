import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseIngestLines, type ParsedLines } from './ingest-items.js';
import type { IngestItem, IngestReport } from './market-data.js';
import { emptyReport } from './market-writer.js';
import type { SqliteMarketData } from './sqlite-market-data.js';

const BATCH_LINES = 5_000;

/** The file's lines parsed `BATCH_LINES` at a time, as they are read. */
async function* parsedBatches(path: string): AsyncGenerator<ParsedLines> {
  const input = createReadStream(path, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    let batch: string[] = [];
    let first = 1;
    let lineNumber = 0;
    for await (const line of lines) {
      lineNumber += 1;
      batch.push(line);
      if (batch.length === BATCH_LINES) {
        yield parseIngestLines(batch.join('\n'), first);
        batch = [];
        first = lineNumber + 1;
      }
    }
    if (batch.length > 0) yield parseIngestLines(batch.join('\n'), first);
  } finally {
    lines.close();
    input.destroy();
  }
}

async function* itemBatches(path: string): AsyncGenerator<IngestItem[]> {
  for await (const parsed of parsedBatches(path)) yield parsed.items;
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
 * than memory are fine); when all are good, a second pass writes them in one transaction
 * ({@link SqliteMarketData.ingestBatches}: in batches, the event loop turning between them).
 */
export async function ingestFile(market: SqliteMarketData, path: string, options: { maxProblems?: number; onProgress?: (items: number) => void } = {}): Promise<IngestFileResult> {
  const maxProblems = options.maxProblems ?? 50;
  const problems: ParsedLines['problems'] = [];
  let items = 0;
  for await (const parsed of parsedBatches(path)) {
    items += parsed.items.length;
    problems.push(...parsed.problems.slice(0, maxProblems - problems.length));
    if (problems.length >= maxProblems) break;
  }
  if (problems.length > 0) return { report: emptyReport(), problems, lines: items };
  const report = await market.ingestBatches(itemBatches(path), options.onProgress ? { onProgress: options.onProgress } : {});
  return { report, problems, lines: items };
}
