// Benchmark: the cost of starting queries warm (issue 11). 10,000 `ta` queries over 500 symbols are
// activated with their windows and indicators backfilled from the host's own record of prices
// (SqlitePriceHistory: one-minute candles per asset with 15m, 1h and 1d rollups, 3 days per symbol,
// 2.16M minutes), side by side in
// one run with:
//   (a) EQL warm: Engine.add with history [SqlitePriceHistory] — what the host does at create and restart;
//   (b) EQL cold: the same queries without history (the engine as it was: series start empty);
//   (c) the plain-JS limit: for each distinct (symbol, timeframe, indicator) read the same minutes with
//       the same SQL, fold them into candles and feed the same trading-signals indicator; nothing else.
// The warm engine's values are checked against the plain-JS limit (same numbers), so both do the work.
// Then live ticks per second with the 10k queries in place, warm and cold, on the same ticks (the live
// path must not slow down for having started warm), and the heap each holds after activation.
//
// Each system runs in a fresh child process (node --expose-gc bench/history.mjs --worker SYSTEM).
// Data: bench/data/prices-500x3d.sqlite (gitignored), built on the first run (about 20 s).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ATR, BollingerBands, CCI, EMA, MACD, RSI, SMA, StochasticOscillator, WilliamsR } from 'trading-signals';
import { Engine, PushSource, TA_METHODS, resolveIndicator, familyKey } from '@eql/core';
import { SqlitePriceHistory } from '@eql/server';
import { HeapVirtualScheduler } from './support/heap-scheduler.mjs';
import { hash2, SYMBOLS } from './support/price-workload.mjs';

const DATA = fileURLToPath(new URL('./data/', import.meta.url));
const FILE = `${DATA}prices-500x3d-v2.sqlite`;
const MINUTE = 60_000;
const DAYS = 3;
const NOW = Date.UTC(2026, 0, 8);
const ORIGIN = NOW - DAYS * 86_400_000;
const QUERIES = 10_000;
const TIMEFRAMES = [['1m', MINUTE], ['5m', 5 * MINUTE], ['15m', 15 * MINUTE], ['1h', 3_600_000], ['4h', 4 * 3_600_000]];
const LIVE_TICKS = 200_000;

const priceAt = (s, minute) => 100 * Math.exp(0.02 * Math.sin((minute + s * 37) / 180) + 0.004 * Math.sin((minute * 7 + s) / 11)) * (1 + (hash2(s, minute) % 100) / 100_000);

function buildData() {
  if (existsSync(FILE)) return;
  mkdirSync(DATA, { recursive: true });
  const started = Date.now();
  const store = new SqlitePriceHistory(FILE, { retentionMs: 30 * 86_400_000 });
  // Two trades a minute per symbol, imported as minutes (what record() writes, with its rollups), a symbol a transaction.
  for (let s = 0; s < SYMBOLS.length; s++) {
    const minutes = [];
    for (let minute = 0; minute < DAYS * 1440; minute++) {
      const at = ORIGIN + minute * MINUTE;
      const open = priceAt(s, minute);
      const close = priceAt(s, minute + 0.5);
      minutes.push([SYMBOLS[s], { start: at, open, high: Math.max(open, close), low: Math.min(open, close), close, volume: 2 + (hash2(minute, s) % 9), openAt: at, closeAt: at + 30_000 }]);
    }
    store.importMinutes(minutes);
  }
  store.close();
  console.log(`built ${FILE} in ${((Date.now() - started) / 1000).toFixed(1)} s (${(statSync(FILE).size / 1e6).toFixed(0)} MB)`);
}

/** Query q: a ta method, timeframe and default parameters, on symbol q % 500 (20 per symbol, spread over the methods). */
function queryOf(q) {
  const method = BENCH_METHODS[hash2(q, 1) % BENCH_METHODS.length];
  const [timeframe, tfMs] = TIMEFRAMES[hash2(q, 2) % TIMEFRAMES.length];
  const symbol = SYMBOLS[q % SYMBOLS.length];
  // `> -1e12`: holds whenever the value is defined; the second condition never holds, so nothing fires and leaves.
  const request = {
    query: {
      conditions: { AND: [{ source: 'ta', method, args: { symbol, timeframe }, operator: '>', value: -1e12 }, { source: 'price', method: 'current', args: { symbol }, operator: '<', value: 0 }] },
      actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }],
      expiresIn: '7d',
    },
  };
  return { method, timeframe, tfMs, symbol, request };
}

function heapMb() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

// ------------------------------------------------------------------ workers

function engineWorker(warm) {
  const store = new SqlitePriceHistory(FILE, { now: () => NOW });
  const scheduler = new HeapVirtualScheduler(NOW);
  const feed = new PushSource();
  const engine = new Engine({ scheduler, sources: [feed], ...(warm ? { history: [store] } : {}) });
  const before = heapMb();
  const started = process.hrtime.bigint();
  for (let q = 0; q < QUERIES; q++) engine.add({ queryId: `q${q}`, request: queryOf(q).request, createdAt: NOW });
  const activationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const heap = heapMb() - before;
  let ready = 0;
  let checksum = 0;
  for (let q = 0; q < QUERIES; q++) {
    const state = engine.inspect(`q${q}`).conditionStates[0];
    if (state.status === 'ready') ready++;
    if (state.value !== undefined) checksum += state.value;
  }
  // Live ticks, round-robin over the symbols, a minute of virtual time per round.
  let at = NOW;
  const tickStart = process.hrtime.bigint();
  for (let i = 0; i < LIVE_TICKS; i++) {
    const s = i % SYMBOLS.length;
    if (s === 0) at += MINUTE;
    scheduler.advanceTo(at);
    feed.push({ at, source: 'price', symbol: SYMBOLS[s], price: priceAt(s, (at - ORIGIN) / MINUTE), volume: 1 });
  }
  const tickSeconds = Number(process.hrtime.bigint() - tickStart) / 1e9;
  store.close();
  return { activationMs, heapMb: heap, ready, checksum, ticksPerSecond: LIVE_TICKS / tickSeconds };
}

const FAMILY_STEP = {
  rsi: (p) => { const i = new RSI(p.period); return (c) => ({ rsi: i.add(c.close) }); },
  ema: (p) => { const i = new EMA(p.period); return (c) => { i.add(c.close); return { ema: i.getResult() }; }; },
  sma: (p) => { const i = new SMA(p.period); return (c) => ({ sma: i.add(c.close) }); },
  atr: (p) => { const i = new ATR(p.period); return (c) => ({ atr: i.add(c) }); },
  cci: (p) => { const i = new CCI(p.period); return (c) => ({ cci: i.add(c) }); },
  willr: (p) => { const i = new WilliamsR(p.period); return (c) => ({ willr: i.add(c) }); },
  macd: (p) => {
    const i = new MACD(new EMA(p.fastPeriod), new EMA(p.slowPeriod), new EMA(p.signalPeriod));
    return (c) => { const r = i.add(c.close); return r ? { macd_value: r.macd, macd_signal: i.signal.isStable ? r.signal : null, macd_histogram: i.signal.isStable ? r.histogram : null } : {}; };
  },
  bbands: (p) => { const i = new BollingerBands(p.period, p.stdDev); return (c) => { const r = i.add(c.close); return r ? { bbands_upper: r.upper, bbands_middle: r.middle, bbands_lower: r.lower } : {}; }; },
  stoch: (p) => { const i = new StochasticOscillator({ kPeriod: p.period, kSlowingPeriod: 1, dPeriod: p.signalPeriod }); return (c) => { const r = i.add(c); return r ? { stoch_k: r.stochK, stoch_d: r.stochD } : {}; }; },
};

/** The methods whose families the plain-JS limit computes (the first 14: the workload this bench has measured since issue 11). */
const BENCH_METHODS = TA_METHODS.filter((method) => resolveIndicator(method).family in FAMILY_STEP);

/** The least work that gives the same warm values: one SQL read and one indicator per distinct family. */
function plainWorker() {
  const store = new SqlitePriceHistory(FILE, { now: () => NOW });
  const read = store.db.prepare('SELECT start, open, high, low, close, volume FROM price_candles WHERE asset = ? AND res = ? AND start >= ? AND start < ? ORDER BY start');
  const first = store.db.prepare('SELECT min(start) AS start FROM price_candles WHERE asset = ? AND res = 60000');
  const before = heapMb();
  const started = process.hrtime.bigint();
  const families = new Map();
  let checksum = 0;
  for (let q = 0; q < QUERIES; q++) {
    const { method, tfMs, symbol } = queryOf(q);
    const spec = resolveIndicator(method, {});
    const key = `${symbol}|${tfMs}|${familyKey(spec)}`;
    let outputs = families.get(key);
    if (!outputs) {
      const step = FAMILY_STEP[spec.family](spec.params);
      outputs = {};
      let bucket;
      // The same origin (first minute, or 1000 candles back) and the same rollup rows as the store reads.
      const origin = Math.max(first.get(symbol).start, Math.floor((NOW - 1000 * tfMs) / tfMs) * tfMs);
      const res = [86_400_000, 3_600_000, 900_000, MINUTE].find((candidate) => tfMs % candidate === 0);
      for (const m of read.all(symbol, res, Math.ceil(origin / tfMs) * tfMs, NOW)) {
        const start = Math.floor(m.start / tfMs) * tfMs;
        if (bucket && bucket.start === start) {
          if (m.high > bucket.high) bucket.high = m.high;
          if (m.low < bucket.low) bucket.low = m.low;
          bucket.close = m.close;
          bucket.volume += m.volume;
          continue;
        }
        if (bucket) outputs = step(bucket);
        bucket = { start, open: m.open, high: m.high, low: m.low, close: m.close, volume: m.volume };
      }
      families.set(key, outputs);
    }
    const value = outputs[method];
    if (value !== null && value !== undefined && Number.isFinite(value)) checksum += value;
  }
  const activationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const heap = heapMb() - before;
  store.close();
  return { activationMs, heapMb: heap, checksum, families: families.size };
}

if (process.argv[2] === '--worker') {
  const system = process.argv[3];
  const result = system === 'plain' ? plainWorker() : engineWorker(system === 'warm');
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

// ------------------------------------------------------------------ parent

buildData();
const run = (system) => {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--worker', system], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`${system} worker failed:\n${child.stderr}`);
  return JSON.parse(child.stdout);
};
const warm = run('warm');
const cold = run('cold');
const plain = run('plain');
const perQuery = (r) => ((r.activationMs * 1000) / QUERIES).toFixed(1);
console.log(`activation of ${QUERIES.toLocaleString('en')} ta queries over ${SYMBOLS.length} symbols (14 methods, 1m to 4h, history of ${DAYS} days of minutes each; ${plain.families} distinct indicators)`);
console.log('| system | total | per query | heap after | ready at once |');
console.log('|---|---|---|---|---|');
console.log(`| EQL warm (history from the host store) | ${(warm.activationMs / 1000).toFixed(2)} s | ${perQuery(warm)} µs | ${warm.heapMb.toFixed(1)} MB | ${warm.ready} |`);
console.log(`| EQL cold (no history) | ${(cold.activationMs / 1000).toFixed(2)} s | ${perQuery(cold)} µs | ${cold.heapMb.toFixed(1)} MB | ${cold.ready} |`);
console.log(`| plain-JS limit (SQL + indicator) | ${(plain.activationMs / 1000).toFixed(2)} s | ${perQuery(plain)} µs | ${plain.heapMb.toFixed(1)} MB | - |`);
console.log(`ratio EQL warm / plain-JS limit: ${(warm.activationMs / plain.activationMs).toFixed(2)}x; warm values agree with the limit: ${Math.abs(warm.checksum - plain.checksum) <= 1e-6 * Math.abs(plain.checksum) ? 'yes' : `NO (${warm.checksum} vs ${plain.checksum})`}`);
console.log(`history held in memory by the warm engine: ${(warm.heapMb - cold.heapMb).toFixed(1)} MB more than cold (${(((warm.heapMb - cold.heapMb) * 1e6) / QUERIES).toFixed(0)} bytes a query)`);
console.log(`live ticks with the ${QUERIES.toLocaleString('en')} queries in place: warm ${Math.round(warm.ticksPerSecond).toLocaleString('en')}/s, cold ${Math.round(cold.ticksPerSecond).toLocaleString('en')}/s (ratio ${(warm.ticksPerSecond / cold.ticksPerSecond).toFixed(2)})`);
