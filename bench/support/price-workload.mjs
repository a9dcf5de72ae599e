// The shared workload of bench/engine.mjs: a deterministic market (500 symbols, mean-reverting random
// walk, ticks round-robin over the symbols) and a population of price queries (one per slot) whose
// thresholds are spread around the prices on the side where the condition does not hold yet, so only
// a small share fires per tick. A query that fires is final; its slot gets a replacement (generation
// + 1) with a fresh threshold around the price of that moment. Thresholds depend only on (slot,
// generation, price), so every system under test sees exactly the same queries and ticks and must
// fire exactly the same ones.

export const SYMBOL_COUNT = 500;
export const SYMBOLS = Array.from({ length: SYMBOL_COUNT }, (_, index) => `S${String(index).padStart(3, '0')}`);

/** Operators and their share (percent) of the query population. `!=` is left out: it would fire on add. */
export const OPERATOR_MIX = [
  ['>', 20],
  ['>=', 10],
  ['<', 20],
  ['<=', 10],
  ['crosses_above', 19],
  ['crosses_below', 19],
  ['==', 2],
];
export const OPERATORS = OPERATOR_MIX.map(([operator]) => operator);
const OPERATOR_WHEEL = OPERATOR_MIX.flatMap(([, share], code) => Array.from({ length: share }, () => code));

/** A 32-bit mix of two integers (murmur3 finaliser): deterministic, independent of call order. */
export function hash2(a, b) {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const unit = (a, b) => hash2(a, b) / 4294967296;

/**
 * Prices: one mean-reverting random walk per symbol in log space (tick volatility 0.05 %, stationary
 * spread about 0.8 %), on a price grid of about 5 significant digits. `advance()` moves the next
 * symbol of the round-robin and returns its index; `price[s]` and `previous[s]` are then its new and
 * former price.
 */
export class Market {
  constructor(seed = 1) {
    this.seed = seed;
    this.tick = 0;
    this.base = new Float64Array(SYMBOL_COUNT);
    this.step = new Float64Array(SYMBOL_COUNT);
    this.log = new Float64Array(SYMBOL_COUNT);
    this.price = new Float64Array(SYMBOL_COUNT);
    this.previous = new Float64Array(SYMBOL_COUNT);
    for (let s = 0; s < SYMBOL_COUNT; s++) {
      const base = 10 ** (unit(seed, s) * 3.7); // 1 .. 5000
      this.base[s] = Math.log(base);
      this.step[s] = 10 ** (Math.floor(Math.log10(base)) - 4);
      this.log[s] = this.base[s];
      this.price[s] = this.round(s, base);
      this.previous[s] = this.price[s];
    }
  }

  round(s, value) {
    return Math.round(value / this.step[s]) * this.step[s];
  }

  advance() {
    const k = this.tick++;
    const s = k % SYMBOL_COUNT;
    // Box-Muller from two hashed uniforms.
    const u = (hash2(this.seed * 7919 + 13, k) + 1) / 4294967297;
    const v = hash2(this.seed * 104729 + 7, k) / 4294967296;
    const gauss = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    this.log[s] += 0.0005 * gauss - 0.002 * (this.log[s] - this.base[s]);
    this.previous[s] = this.price[s];
    this.price[s] = this.round(s, Math.exp(this.log[s]));
    return s;
  }
}

/**
 * The query population: slot i watches symbol i mod 500 with a fixed operator (by the mix above);
 * its generation counts replacements. The threshold sits 0.2 % to 10 % away from the price (denser
 * near it), above the price for > >= and below for < <= (so the level does not hold on add); crossings
 * are placed on either side; == sits on the price grid.
 */
export class Population {
  /**
   * `workload` 'idle' puts thresholds 0.2-10 % from the price (few fire: free for an index, costly for
   * a scan); 'firing' puts them 0.01-0.5 % from it, inside the ~0.8 % the price moves, so many fire
   * every second and every fire replaces a query (remove, compile, index). `symbols`: how many of the
   * symbols the slots spread over (all of them by default; one puts every query on the first).
   */
  constructor(size, market, workload = 'idle', symbols = SYMBOL_COUNT) {
    this.size = size;
    this.market = market;
    this.workload = workload;
    this.symbol = new Uint16Array(size);
    this.operator = new Uint8Array(size);
    this.generation = new Uint32Array(size);
    this.threshold = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      this.symbol[i] = i % symbols;
      this.operator[i] = OPERATOR_WHEEL[hash2(i, 0x5eed) % OPERATOR_WHEEL.length];
      this.threshold[i] = this.thresholdFor(i, 0);
    }
  }

  thresholdFor(slot, generation) {
    const s = this.symbol[slot];
    const price = this.market.price[s];
    const u = unit(slot * 31 + 1, generation);
    const distance = this.workload === 'firing' ? 0.0001 + 0.0049 * u * u : 0.002 + 0.098 * u * u;
    const operator = OPERATORS[this.operator[slot]];
    let above;
    if (operator === '>' || operator === '>=') above = true;
    else if (operator === '<' || operator === '<=') above = false;
    else above = unit(slot * 31 + 2, generation) < 0.5;
    const raw = price * (above ? 1 + distance : 1 - distance);
    return operator === '==' ? this.market.round(s, raw) : raw;
  }

  /** The slot fired: the next generation takes its place, around the current price. */
  replace(slot) {
    this.generation[slot] += 1;
    this.threshold[slot] = this.thresholdFor(slot, this.generation[slot]);
  }

  id(slot) {
    return `q${slot}.${this.generation[slot]}`;
  }

  operatorOf(slot) {
    return OPERATORS[this.operator[slot]];
  }

  request(slot) {
    return eqlRequest(SYMBOLS[this.symbol[slot]], this.operatorOf(slot), this.threshold[slot]);
  }
}

/** A valid EQL query request: one price.current condition, one notify action, 30 days. */
export function eqlRequest(symbol, operator, value) {
  return {
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator, value }] },
      actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }],
      expiresIn: '30d',
    },
  };
}

/** slot of a query id `q<slot>.<generation>` */
export function slotOf(queryId) {
  return Number.parseInt(queryId.slice(1), 10);
}

/** Whether a condition `operator threshold` holds at a move previous -> current (the reference semantics). */
export function holdsAt(operator, threshold, previous, current) {
  switch (operator) {
    case '>':
      return current > threshold;
    case '>=':
      return current >= threshold;
    case '<':
      return current < threshold;
    case '<=':
      return current <= threshold;
    case '==':
      return current === threshold;
    case 'crosses_above':
      return previous <= threshold && current > threshold;
    case 'crosses_below':
      return previous >= threshold && current < threshold;
    default:
      throw new Error(`unknown operator ${operator}`);
  }
}
