import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ingestFile, SqliteMarketData } from '@eql/market-data';
import { configFromEnv } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

export interface IngestFlags {
  json: boolean;
  dataDir?: string;
}

/**
 * `eql ingest FILE.jsonl [--data-dir DIR] [--json]`: adds posts, news, Telegram messages and account
 * profiles (schemas/ingest.schema.json; recording lines of posts and news too) to the host's market
 * data, all or nothing. Exit 0 ingested, 1 some lines are invalid (listed; nothing written), 2 no file.
 */
export async function ingestCommand(file: string, flags: IngestFlags, io: CliIo): Promise<number> {
  if (!existsSync(file)) throw new UnusableInput(`no such file: ${file}`);
  const config = configFromEnv(process.env, flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {});
  const market = new SqliteMarketData(join(config.dataDir, 'market.sqlite'));
  try {
    const result = await ingestFile(market, file);
    if (flags.json) {
      io.stdout(`${JSON.stringify({ ingested: result.problems.length === 0, ...result.report, problems: result.problems }, null, 2)}\n`);
    } else if (result.problems.length > 0) {
      for (const problem of result.problems) io.stderr(`${terminalText(`${file}:${problem.line}: ${problem.path === '/' ? '' : `${problem.path}: `}${problem.message}`)}\n`);
      io.stderr(`nothing ingested: fix the lines above${result.problems.length >= 50 ? ' (the first 50 shown)' : ''}\n`);
    } else {
      const { posts, news, telegram, accounts, duplicates } = result.report;
      io.stdout(`ingested ${posts} posts, ${news} news items, ${telegram} Telegram messages, ${accounts} accounts (${duplicates} already stored, updated) into ${join(config.dataDir, 'market.sqlite')}\n`);
    }
    return result.problems.length > 0 ? 1 : 0;
  } finally {
    market.close();
  }
}
