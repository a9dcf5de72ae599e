export type * from './market-data.js';
export { SqliteMarketData } from './sqlite-market-data.js';
export type { Origin } from './market-writer.js';
export { extractContracts, extractTokens, normalizeContract, normalizeToken } from './extract.js';
export { ingestSchema, parseIngestItem, parseIngestLines, type IngestProblem, type ParsedIngestItem, type ParsedLines } from './ingest-items.js';
export { seedMarketData, type SeedResult } from './seed.js';
export { ingestFile, type IngestFileResult } from './ingest-file.js';
