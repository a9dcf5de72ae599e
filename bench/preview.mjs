// Benchmark: a backtest (issue 49). A year of BTC minute prices (525,600 ticks, a seeded random walk) is
// previewed against an RSI mean-reversion rule (RSI(14) on 5m crosses below 25: buy 0.1 BTC with a 1 %
// take-profit and a 1 % stop, re-armed after an hour, created again at each 30-day expiry: --renew), side
// by side in one run with:
//   (a) EQL preview with the order step (paper venue, exits, trades, equity, statistics);
//   (b) EQL preview of the same rule with a notify step instead (what trading costs on top of replaying);
//   (c) the plain-JS limit: the same ticks folded into 5m candles, the same trading-signals RSI, the same
//       crossing, cooldown and 30-day lives, and a position with its take-profit and stop on the ticks:
//       nothing else.
// Prints each median over --rounds (default 3), the ratios, and whether (a) and (c) made the same trades.
// Aims (issue 49): (a) under 10 s on this machine; (a) / (b) at most 1.5.
import { RSI } from 'trading-signals';
import { preview } from '@eql/core';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const ROUNDS = option('rounds', 3);
const MINUTES = option('minutes', 525_600);
const MINUTE = 60_000;
const FIVE = 5 * MINUTE;
const START = Date.UTC(2025, 0, 6);
const LIFE = 30 * 86_400_000;
const COOLDOWN = 3_600_000;

function recording() {
  let price = 60_000;
  let seed = 1;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const observations = [];
  for (let i = 0; i < MINUTES; i++) {
    price *= 1 + (random() - 0.5) * 0.004;
    observations.push({ at: START + i * MINUTE, source: 'price', symbol: 'BTC', price: Math.round(price * 100) / 100, volume: 1 });
  }
  return { observations, start: START, end: START + (MINUTES - 1) * MINUTE };
}

const rule = (orders) => ({
  query: {
    conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '5m', period: 14 }, operator: 'crosses_below', value: 25 }] },
    actions: [
      orders
        ? { stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', size: 0.1, takeProfit: { percent: 1 }, stopLoss: { percent: 1 } } }
        : { stepId: 'n', type: 'notify', params: { message: 'oversold' } },
    ],
    expiresIn: '30d',
    repeat: { cooldown: '1h' },
  },
});

/** The limit: candles, RSI, crossing with cooldown and lives, one position with its exits on the ticks. */
function limit(observations) {
  const rsi = new RSI(14);
  let bucket;
  let close;
  let value;
  let previous;
  let lifeStart = START;
  let coolUntil = -Infinity;
  let position;
  let realized = 0;
  let trades = 0;
  for (const tick of observations) {
    if (tick.at >= lifeStart + LIFE) {
      // A new life: no crossing against the last life's value, no cooldown.
      lifeStart += LIFE;
      previous = undefined;
      coolUntil = -Infinity;
    }
    if (position !== undefined && (tick.price >= position.takeProfit || tick.price <= position.stop)) {
      realized += 0.1 * (tick.price - position.entry);
      trades += 1;
      position = undefined;
    }
    const start = tick.at - (tick.at % FIVE);
    if (bucket !== undefined && start !== bucket) value = rsi.add(close) ?? undefined;
    bucket = start;
    close = tick.price;
    if (value === undefined) continue;
    const below = value < 25;
    const crossed = below && previous === false;
    previous = below;
    if (crossed && tick.at >= coolUntil) {
      coolUntil = tick.at + COOLDOWN;
      if (position === undefined) position = { entry: tick.price, takeProfit: tick.price * 1.01, stop: tick.price * 0.99, size: 0.1 };
      else position = { ...position, entry: (position.entry + tick.price) / 2 };
    }
  }
  return { trades, realized };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const data = recording();
const times = { orders: [], notify: [], limit: [] };
let outcome;
let limitOutcome;
for (let round = 0; round < ROUNDS; round++) {
  for (const system of ['orders', 'notify', 'limit']) {
    const started = performance.now();
    if (system === 'limit') limitOutcome = limit(data.observations);
    else {
      const result = preview(rule(system === 'orders'), data, { renew: true });
      if (system === 'orders') outcome = result;
    }
    times[system].push(performance.now() - started);
  }
}
const orders = median(times.orders);
const notify = median(times.notify);
const plain = median(times.limit);
const summary = outcome.paper.summary;
console.log(`a year of BTC minutes (${MINUTES.toLocaleString('en-US')} ticks), RSI(14) 5m < 25 rule, ${outcome.triggers.length} triggers over ${outcome.lives} lives, median of ${ROUNDS}:`);
console.log(`  (a) EQL preview, order step on paper   ${(orders / 1000).toFixed(2)} s   ${summary.trades} trades, net ${summary.netPnlUsd.toFixed(2)} USD, max drawdown ${summary.maxDrawdownPercent.toFixed(2)} %`);
console.log(`  (b) EQL preview, notify step            ${(notify / 1000).toFixed(2)} s   trading costs ${(orders / notify).toFixed(2)}x (aim: at most 1.5x)`);
console.log(`  (c) plain-JS limit                      ${(plain / 1000).toFixed(2)} s   ${limitOutcome.trades} trades, realized ${limitOutcome.realized.toFixed(2)} USD; EQL / limit ${(orders / plain).toFixed(1)}x`);
console.log(`  aim (a) under 10 s: ${orders < 10_000 ? 'met' : 'not met'}; same trades as the limit: ${summary.trades === limitOutcome.trades ? 'yes' : 'no'}`);
