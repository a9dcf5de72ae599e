/**
 * @eql/market-data: the market-intelligence data of the host (X posts, news, Telegram messages and
 * account profiles, with the tokens and contracts found in their text), stored in SQLite by
 * `SqliteMarketData`, filled by ingest files (`ingestFile`) or the demo seed (`seedMarketData`), and
 * read through the `MarketData` interface by the analysts and the market-data routes.
 *
 * @packageDocumentation
 */
export type * from './market-data.js';
export { INGEST_BATCH_SIZE, SqliteMarketData, type IngestOptions } from './sqlite-market-data.js';
export type { Origin } from './market-writer.js';
export { extractContracts, extractTokens, normalizeContract, normalizeToken } from './extract.js';
export { ingestSchema, parseIngestItem, parseIngestLines, parseIngestValues, type IngestProblem, type ParsedIngestItem, type ParsedLines, type ParsedValues } from './ingest-items.js';
export { seedMarketData, type SeedResult } from './seed.js';
export { ingestFile, type IngestFileResult } from './ingest-file.js';
