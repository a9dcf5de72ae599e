import { bucketStartOf, type Candle, eqlSchema, HistoryError, isTimeframe, type Observation, parseInstant, parseRecording, RecordingError, serializeRecording, timeframeMs } from '@eql/core';
import { CcxtPriceHistory, type CcxtConfig } from '@eql/venue-ccxt';
import { type CliIo, UnusableInput } from '../io.js';

/** The flags of `eql record`. */
export interface RecordFlags {
  /** A ccxt exchange id: `binanceusdm`, `bybit`, `okx`, `hyperliquid`, ... */
  venue: string;
  /** Comma-separated symbols as queries name them: `BTC,ETH`. */
  symbols: string;
  timeframe: string;
  from: string;
  /** Default: now (the last closed candle). */
  to?: string;
  output: string;
}

/** What a test gives the command instead of the network: the venue's ccxt options, a faster backoff, a clock. */
export interface RecordDeps {
  config?: CcxtConfig;
  retryBaseMs?: number;
  now?: () => number;
}

/** Candles fetched and written at a time per symbol: a run stopped at any moment resumes after the last chunk written. */
const CHUNK_CANDLES = 1000;
const MAX_SYMBOLS = 20;
/** A symbol as queries write it: the schema's own pattern, so a recorded symbol is one a query can name. */
const SYMBOL = new RegExp((eqlSchema as unknown as { $defs: { symbol: { pattern: string } } }).$defs.symbol.pattern);

/**
 * `eql record`: a recording of a venue's candles through ccxt (paged `fetchOHLCV`, retried on 429 and
 * transient errors), for `eql preview --data`. Each candle becomes four price observations inside its
 * bucket (open at its start, then the low and the high in the order a bar of its colour most likely
 * took them, the close at three quarters, carrying the candle's volume), so the engine builds the same
 * candle back on the recorded timeframe; the symbols' ticks are interleaved in time order (1 ms apart at
 * equal instants). Written chunk by chunk: a second run on the same file goes on after its last candle.
 */
export async function recordCommand(flags: RecordFlags, io: CliIo, deps: RecordDeps = {}): Promise<number> {
  if (!io.writeFile || !io.appendFile) throw new UnusableInput('this output cannot write files');
  const venue = flags.venue.trim().toLowerCase();
  if (!/^[a-z][a-z0-9]{1,31}$/.test(venue)) throw new UnusableInput(`--venue must be a ccxt exchange id such as binanceusdm, not ${JSON.stringify(flags.venue)}`);
  const symbols = [...new Set(flags.symbols.split(',').map((symbol) => symbol.trim()).filter((symbol) => symbol !== ''))];
  if (symbols.length === 0 || symbols.length > MAX_SYMBOLS) throw new UnusableInput(`--symbols must name 1 to ${MAX_SYMBOLS} symbols, comma-separated (BTC,ETH)`);
  for (const symbol of symbols) if (!SYMBOL.test(symbol)) throw new UnusableInput(`not a symbol: ${JSON.stringify(symbol)}`);
  if (!isTimeframe(flags.timeframe) || timeframeMs(flags.timeframe) > 86_400_000) throw new UnusableInput(`--timeframe must be one of 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 6h, 8h, 12h, 1d, not ${JSON.stringify(flags.timeframe)}`);
  const tf = timeframeMs(flags.timeframe);
  const now = (deps.now ?? Date.now)();
  const from = instant(flags.from, 'from');
  // Only closed candles: the bucket forming now would be recorded before its end.
  const to = Math.min(flags.to === undefined ? now : instant(flags.to, 'to'), bucketStartOf(now, tf));
  if (!(from < to)) throw new UnusableInput(`--from must be before --to (and before the last closed ${flags.timeframe} candle)`);

  let start = bucketStartOf(from, tf) < from ? bucketStartOf(from, tf) + tf : from;
  const resumed = await resumePoint(flags.output, io, tf);
  if (resumed !== undefined) {
    start = Math.max(start, resumed);
    io.stderr(`${flags.output} holds candles before ${new Date(resumed).toISOString()}: going on from ${new Date(start).toISOString()}\n`);
  } else {
    await io.writeFile(flags.output, '');
  }
  const history = new CcxtPriceHistory(venue, {
    maxCandles: Math.ceil((now - start) / tf) + 2,
    now: () => now,
    ...(deps.config ? { config: deps.config } : {}),
    ...(deps.retryBaseMs !== undefined ? { retryBaseMs: deps.retryBaseMs } : {}),
  });
  let candles = 0;
  try {
    for (let chunk = start; chunk < to; chunk += CHUNK_CANDLES * tf) {
      const end = Math.min(to, chunk + CHUNK_CANDLES * tf);
      const ticks: Observation[] = [];
      for (const [index, symbol] of symbols.entries()) {
        const rows = await history.candles({ source: 'price', symbol }, tf, chunk, end);
        candles += rows.length;
        for (const candle of rows) ticks.push(...ticksOf(candle, symbol, tf, index));
      }
      ticks.sort((a, b) => a.at - b.at);
      if (ticks.length > 0) await io.appendFile(flags.output, serializeRecording(ticks));
      if (io.progress === true) io.stderr(`recording ${symbols.join(',')} ${flags.timeframe} from ${venue}: ${new Date(end).toISOString()} (${Math.floor(((end - start) / (to - start)) * 100)}%)\r`);
    }
  } catch (error) {
    if (error instanceof HistoryError) {
      io.stderr(`eql record: ${venue}: ${error.message} (${error.code}); what was written so far stays in ${flags.output}, and a second run goes on after it\n`);
      return 2;
    }
    throw error;
  }
  if (io.progress === true) io.stderr('\n');
  io.stdout(`wrote ${candles} ${flags.timeframe} candles of ${symbols.join(', ')} from ${venue} (${new Date(start).toISOString()} to ${new Date(to).toISOString()}) into ${flags.output}\n`);
  return 0;
}

function instant(text: string, flag: string): number {
  const time = parseInstant(text);
  if (time === undefined) throw new UnusableInput(`--${flag} must be an ISO 8601 time with a zone (2026-01-01T00:00:00Z) or epoch milliseconds, not ${JSON.stringify(text)}`);
  return time;
}

/**
 * Where a run goes on in an output written before: the start of the bucket of its last observation, or
 * undefined when there is none. That bucket's ticks (maybe cut short by a stopped run, with a last line
 * cut in the middle) are dropped from the file and fetched again, so every candle is whole and none twice.
 */
async function resumePoint(path: string, io: CliIo, tf: number): Promise<number | undefined> {
  let text: string;
  try {
    text = await io.readFile(path);
  } catch {
    return undefined;
  }
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.trim() === '') return undefined;
  let observations: readonly Observation[];
  try {
    observations = parseRecording(complete).observations;
  } catch (error) {
    if (error instanceof RecordingError) throw new UnusableInput(`${path} is not a recording to go on with: ${error.message}`);
    throw error;
  }
  const last = bucketStartOf((observations.at(-1) as Observation).at, tf);
  await io.writeFile?.(path, serializeRecording(observations.filter((observation) => observation.at < last)));
  return last;
}

/** A candle as four ticks inside its bucket (see the command's comment); `offset` (ms) keeps the symbols' ticks apart. */
function ticksOf(candle: Candle, symbol: string, tf: number, offset: number): Observation[] {
  const quarter = Math.floor(tf / 4);
  const rising = candle.close >= candle.open;
  const path = rising ? [candle.open, candle.low, candle.high, candle.close] : [candle.open, candle.high, candle.low, candle.close];
  return path.map((price, step): Observation => {
    const at = candle.start + step * quarter + offset;
    return step === 3 ? { at, source: 'price', symbol, price, volume: candle.volume } : { at, source: 'price', symbol, price };
  });
}
