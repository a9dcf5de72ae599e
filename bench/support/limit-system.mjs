// The limit of this machine for the price workload of bench/engine.mjs: plain JavaScript, no framework.
// Per symbol and operator, the thresholds sorted in an array with their slots; a tick finds the ones it
// decides with a binary search. It fires exactly what the engine must fire (the run cross-checks it):
//   > t: price > t   >= t: price >= t   < t: price < t   <= t: price <= t   == t: price === t
//   crosses_above t: previous <= t < price   crosses_below t: previous >= t > price
// (a level query is placed where it does not hold, and a fired query leaves, so "holds now" is "became
// true on this tick"). No timers, no state beyond the arrays, no events: what an engine adds on top of
// this is its price.
import { OPERATORS, SYMBOL_COUNT } from './price-workload.mjs';

const GT = OPERATORS.indexOf('>');
const GE = OPERATORS.indexOf('>=');
const LT = OPERATORS.indexOf('<');
const LE = OPERATORS.indexOf('<=');
const EQ = OPERATORS.indexOf('==');
const UP = OPERATORS.indexOf('crosses_above');
const DOWN = OPERATORS.indexOf('crosses_below');

/** First index whose key is >= value (or > value when `after`). */
function bound(keys, value, after) {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const key = keys[middle];
    if (key < value || (after && key === value)) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class LimitSystem {
  constructor(population) {
    this.population = population;
    this.market = population.market;
    this.keys = Array.from({ length: SYMBOL_COUNT * OPERATORS.length }, () => []);
    this.slots = Array.from({ length: SYMBOL_COUNT * OPERATORS.length }, () => []);
    this.fired = [];
  }

  list(slot) {
    return this.population.symbol[slot] * OPERATORS.length + this.population.operator[slot];
  }

  add(slot) {
    const list = this.list(slot);
    const threshold = this.population.threshold[slot];
    const at = bound(this.keys[list], threshold, true);
    this.keys[list].splice(at, 0, threshold);
    this.slots[list].splice(at, 0, slot);
  }

  remove(slot) {
    const list = this.list(slot);
    const keys = this.keys[list];
    const slots = this.slots[list];
    for (let at = bound(keys, this.population.threshold[slot], false); at < keys.length; at++) {
      if (slots[at] !== slot) continue;
      keys.splice(at, 1);
      slots.splice(at, 1);
      return;
    }
  }

  /** Fires the slots of lists[list] in [from, to). */
  take(list, from, to) {
    const slots = this.slots[list];
    for (let at = from; at < to; at++) this.fired.push(slots[at]);
  }

  tick(s) {
    const price = this.market.price[s];
    const previous = this.market.previous[s];
    if (price === previous) return;
    const base = s * OPERATORS.length;
    let keys = this.keys[base + GT];
    this.take(base + GT, 0, bound(keys, price, false));
    keys = this.keys[base + GE];
    this.take(base + GE, 0, bound(keys, price, true));
    keys = this.keys[base + LT];
    this.take(base + LT, bound(keys, price, true), keys.length);
    keys = this.keys[base + LE];
    this.take(base + LE, bound(keys, price, false), keys.length);
    keys = this.keys[base + EQ];
    const equal = bound(keys, price, false);
    this.take(base + EQ, equal, bound(keys, price, true));
    if (price > previous) {
      keys = this.keys[base + UP];
      this.take(base + UP, bound(keys, previous, false), bound(keys, price, false));
    } else {
      keys = this.keys[base + DOWN];
      this.take(base + DOWN, bound(keys, price, true), bound(keys, previous, true));
    }
  }
}
