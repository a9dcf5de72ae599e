// Two builds of @eql/core side by side in one process, for a change too small for the benchmarks' single
// runs to show: on this machine a 1k cell of bench/engine.mjs moves by 30 % from one run to the next.
//
//   cp -r packages/core/dist packages/core/dist-base     # before the change (git-ignored)
//   ... change, npx tsc -b ...
//   node --expose-gc bench/support/compare-builds.mjs quiet  [--size 1000] [--rounds 200] [--pollute KB]
//   node --expose-gc bench/support/compare-builds.mjs ladder [--size 1000] [--rounds 60]
//   node --expose-gc bench/support/compare-builds.mjs idle|firing [--size 100000] [--rounds 40]
//   node bench/support/compare-builds.mjs validate [--rounds 400]
//
// quiet:    N price queries far from the price (none fires), ticks only: the tick path. With `--pollute KB`, KB
//           of a 64 MB buffer are written after each tick, a cache line at a time, as the fires between two
//           ticks of a symbol push its objects out of the processor's caches in the benchmark's 100k cells
//           (16 KB: a quiet tick at 100k costs there what it costs in the idle 100k window); the writes are
//           timed with the tick, the same for both builds.
// ladder:   N '>' queries on rising rungs; each tick raises one symbol a rung, so exactly one query fires
//           (one added long before, as in a running system), and its replacement goes on top: a fire with
//           its remove and add, listening to triggers only.
// idle, firing: the engine benchmark's cells themselves (bench/engine.mjs: its market, its population of
//           queries and their replacements, listening to triggers only), one engine a build, each on its own
//           copy of the same market, so both see the same ticks and fire the same queries; a slice is 500
//           ticks (1,000 firing), and the rounds (120, 60 firing) cover about the benchmark's 60k ticks, as the
//           market grows quieter later on. Both engines live in one heap: each one's fires and ticks push the
//           other's objects out of the caches, as in the benchmark's windows. A build against itself: medians
//           0.96 to 1.00 (idle, quartiles about ±18 %).
// validate: validate() of the valid fixture documents.
// Each round runs a slice of the work on one build, then the same slice on the other (order alternating),
// under the same load; the verdict is the median of the rounds' ratios, with its quartiles. A run of a build
// against itself (copy dist to dist-base and compare) gives about 1.00 with quartiles of ±10 %: read a
// median only when several runs agree.
import { readdirSync, readFileSync } from 'node:fs';
import { HeapVirtualScheduler } from './heap-scheduler.mjs';
import { Market, OPERATORS, Population, SYMBOLS, SYMBOL_COUNT, eqlRequest, hash2, slotOf } from './price-workload.mjs';

const CORE = new URL('../../packages/core/', import.meta.url);
const mode = process.argv[2];
const option = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const MODES = ['quiet', 'ladder', 'idle', 'firing', 'validate'];
if (!MODES.includes(mode)) {
  console.error(`usage: node --expose-gc bench/support/compare-builds.mjs ${MODES.join('|')} [--size N] [--rounds R]`);
  process.exit(2);
}
const base = await import(new URL('dist-base/index.js', CORE).href).catch(() => {
  console.error('no packages/core/dist-base: copy packages/core/dist there before the change');
  process.exit(2);
});
const current = await import(new URL('dist/index.js', CORE).href);
const MARKET_MODE = mode === 'idle' || mode === 'firing';
const SIZE = option('--size', MARKET_MODE ? 100_000 : 1000);
const ROUNDS = option('--rounds', mode === 'quiet' ? 200 : mode === 'ladder' ? 60 : mode === 'idle' ? 120 : mode === 'firing' ? 60 : 400);
const START = Date.UTC(2025, 0, 1);
const POLLUTE_DOUBLES = option('--pollute', 0) * 128;
const junk = new Float64Array(POLLUTE_DOUBLES > 0 ? 8 * 1024 * 1024 : 8);
let junkAt = 0;

/** Writes POLLUTE_DOUBLES / 8 cache lines of `junk`, going on where the last call stopped. */
function pollute() {
  for (let written = 0; written < POLLUTE_DOUBLES; written += 8) {
    junk[junkAt] += 1;
    junkAt = (junkAt + 8) & (junk.length - 1);
  }
}

/** An engine over a push source in virtual time, counting its triggers (through `eventsOf` when `triggersOnly` and the build has it). */
function engineOf(core, triggersOnly) {
  const scheduler = new HeapVirtualScheduler(START);
  const source = new core.PushSource();
  const engine = new core.Engine({ scheduler, sources: [source] });
  const counted = { scheduler, source, engine, fires: 0 };
  const events = triggersOnly && typeof engine.eventsOf === 'function' ? engine.eventsOf('trigger') : engine.events$;
  events.subscribe((event) => (counted.fires += event.type === 'trigger' ? 1 : 0));
  return counted;
}

/** N queries that never fire; `run(k)` pushes k ticks of the market. */
function quiet(core) {
  const market = new Market(1);
  const counted = engineOf(core, false);
  const { scheduler, source, engine } = counted;
  for (let s = 0; s < SYMBOL_COUNT; s++) source.push({ at: START, source: 'price', symbol: SYMBOLS[s], price: market.price[s] });
  for (let i = 0; i < SIZE; i++) {
    const s = i % SYMBOL_COUNT;
    const operator = OPERATORS[hash2(i, 7) % 6];
    const above = operator === '>' || operator === '>=' || (operator.startsWith('crosses') && i % 2 === 1);
    const distance = 0.5 + (hash2(i, 9) / 2 ** 32) * 0.4;
    engine.add({ queryId: `q${i}`, createdAt: START, request: eqlRequest(SYMBOLS[s], operator, market.price[s] * (above ? 1 + distance : 1 - distance)) });
  }
  let at = START;
  return {
    unit: 'tick',
    slice: 20_000,
    fires: () => counted.fires,
    run(ticks) {
      for (let k = 0; k < ticks; k++) {
        const s = market.advance();
        at += 10;
        scheduler.advanceTo(at);
        source.push({ at, source: 'price', symbol: SYMBOLS[s], price: market.price[s] });
        pollute();
      }
    },
  };
}

/** One cold fire and its replacement a tick. */
function ladder(core) {
  const counted = engineOf(core, true);
  const { scheduler, source, engine } = counted;
  const rung = new Float64Array(SYMBOL_COUNT);
  const top = new Float64Array(SYMBOL_COUNT);
  const price = (k) => 100 * (1 + k * 1e-4);
  for (let s = 0; s < SYMBOL_COUNT; s++) source.push({ at: START, source: 'price', symbol: SYMBOLS[s], price: price(0) });
  let next = 0;
  const waiting = Array.from({ length: SYMBOL_COUNT }, () => []);
  const addAt = (s, k) => {
    const queryId = `q${next++}`;
    engine.add({ queryId, createdAt: scheduler.now(), request: eqlRequest(SYMBOLS[s], '>', price(k) - 0.005) });
    waiting[s].push(queryId);
  };
  for (let i = 0; i < SIZE; i++) {
    const s = i % SYMBOL_COUNT;
    top[s] += 1;
    addAt(s, top[s]);
  }
  let at = START;
  let tick = 0;
  return {
    unit: 'fire',
    slice: 2_000,
    fires: () => counted.fires,
    run(count) {
      for (let i = 0; i < count; i++) {
        const s = tick++ % SYMBOL_COUNT;
        rung[s] += 1;
        at += 10;
        scheduler.advanceTo(at);
        source.push({ at, source: 'price', symbol: SYMBOLS[s], price: price(rung[s]) });
        engine.remove(waiting[s].shift());
        top[s] += 1;
        addAt(s, top[s]);
      }
    },
  };
}

/** The engine benchmark's cell: its population of queries on its market; a query that fires leaves and its slot gets the next one. */
function marketCell(core) {
  const counted = engineOf(core, true);
  const { scheduler, source, engine } = counted;
  const market = new Market(mode === 'firing' ? 2 : 1);
  const population = new Population(SIZE, market, mode);
  const fired = [];
  engine.eventsOf('trigger').subscribe((event) => fired.push(slotOf(event.queryId)));
  const add = (slot) => engine.add({ queryId: population.id(slot), createdAt: scheduler.now(), request: population.request(slot) });
  for (let s = 0; s < SYMBOL_COUNT; s++) source.push({ at: START, source: 'price', symbol: SYMBOLS[s], price: market.price[s] });
  for (let slot = 0; slot < SIZE; slot++) add(slot);
  return {
    unit: 'tick',
    slice: mode === 'firing' ? 1_000 : 500,
    fires: () => counted.fires,
    run(ticks) {
      for (let k = 0; k < ticks; k++) {
        const s = market.advance();
        const at = START + market.tick * 10;
        scheduler.advanceTo(at);
        source.push({ at, source: 'price', symbol: SYMBOLS[s], price: market.price[s] });
        while (fired.length > 0) {
          const slot = fired.pop();
          engine.remove(population.id(slot));
          population.replace(slot);
          add(slot);
        }
      }
    },
  };
}

/** validate() of the valid fixtures; both builds must give the same results. */
function validation(core) {
  const fixtures = new URL('../../fixtures/eql/', import.meta.url);
  const documents = readdirSync(fixtures)
    .filter((name) => JSON.parse(readFileSync(new URL(`${name}/expected.json`, fixtures), 'utf8')).valid === true)
    .map((name) => JSON.parse(readFileSync(new URL(`${name}/input.json`, fixtures), 'utf8')));
  let valid = 0;
  return {
    unit: 'document',
    slice: 20 * documents.length,
    fires: () => valid,
    results: () => documents.map((document) => JSON.stringify(core.validate(document))),
    run(count) {
      for (let done = 0; done < count; done += documents.length) for (const document of documents) valid += core.validate(document).valid ? 1 : 0;
    },
  };
}

const make = mode === 'quiet' ? quiet : mode === 'ladder' ? ladder : MARKET_MODE ? marketCell : validation;
const a = make(base);
const b = make(current);
if (a.results && JSON.stringify(a.results()) !== JSON.stringify(b.results())) throw new Error('the two builds validate differently');
for (let i = 0; i < 5; i++) {
  a.run(a.slice);
  b.run(b.slice);
}
const ratios = [];
let timeA = 0;
let timeB = 0;
const timed = (system) => {
  const start = performance.now();
  system.run(system.slice);
  return performance.now() - start;
};
for (let round = 0; round < ROUNDS; round++) {
  const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
  const t1 = timed(first);
  const t2 = timed(second);
  const [ta, tb] = first === a ? [t1, t2] : [t2, t1];
  ratios.push(ta / tb);
  timeA += ta;
  timeB += tb;
}
ratios.sort((x, y) => x - y);
const at = (share) => (ratios[Math.floor(share * (ratios.length - 1))] ?? 0).toFixed(3);
const per = (total) => `${((total * 1000) / ROUNDS / a.slice).toFixed(2)} µs`;
console.log(`${mode}${mode === 'validate' ? '' : ` ${SIZE} queries`}: current / base speed ${at(0.5)} (quartiles ${at(0.25)} to ${at(0.75)}, ${ROUNDS} rounds)`);
console.log(`  base ${per(timeA)}, current ${per(timeB)} a ${a.unit}; ${a.fires()} / ${b.fires()} ${mode === 'validate' ? 'valid' : 'fired'}`);
if (a.fires() !== b.fires()) throw new Error('the two builds did different work');
