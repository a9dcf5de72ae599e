import fc from 'fast-check';

/**
 * fast-check arbitraries of valid EQL query requests, shared by the tests of every package.
 * Thresholds stay inside each series' range and durations inside the limits, so every generated
 * request must validate (warnings allowed) at VALIDATION_NOW.
 */

export const VALIDATION_NOW = Date.parse('2026-01-01T00:00:00Z');

const symbol = fc.constantFrom('BTC', 'ETH', 'SOL', 'DOGE', 'BTC/USDT', 'ETH/USDT:USDT');
const exchange = fc.constantFrom('binance', 'hyperliquid', 'paper');
const timeframe = fc.constantFrom('1m', '5m', '15m', '1h', '4h', '1d');
const levelOperator = fc.constantFrom('>', '>=', '<', '<=', 'crosses_above', 'crosses_below');
const confidenceOperator = fc.constantFrom('>', '>=');

function withOptional<T extends Record<string, unknown>>(base: fc.Arbitrary<T>, optional: Record<string, fc.Arbitrary<unknown>>) {
  return fc.tuple(base, fc.record(optional, { requiredKeys: [] })).map(([required, extra]) => ({ ...required, ...extra }));
}

const priceArgs = withOptional(fc.record({ symbol }), { exchange });
const pricePeriodArgs = withOptional(fc.record({ symbol, period: fc.constantFrom('5m', '1h', '4h', '24h', '7d') }), { exchange });
const taPeriodArgs = withOptional(fc.record({ symbol }), { timeframe, period: fc.integer({ min: 2, max: 50 }), exchange });
const macdArgs = withOptional(fc.record({ symbol }), { timeframe, signalPeriod: fc.integer({ min: 2, max: 20 }) });
const bbandsArgs = withOptional(fc.record({ symbol }), { timeframe, period: fc.integer({ min: 2, max: 50 }), stdDev: fc.constantFrom(1, 1.5, 2, 3) });
const stochArgs = withOptional(fc.record({ symbol }), { timeframe, period: fc.integer({ min: 2, max: 30 }), signalPeriod: fc.integer({ min: 2, max: 5 }) });

const between = (min: number, max: number) => fc.integer({ min: Math.ceil(min), max: Math.floor(max) });

export const liveOperand = fc.oneof(
  fc.record({ source: fc.constant('price'), method: fc.constant('current'), args: priceArgs }),
  fc.record({ source: fc.constant('ta'), method: fc.constantFrom('ema', 'sma'), args: taPeriodArgs }),
  fc.record({ source: fc.constant('ta'), method: fc.constantFrom('bbands_upper', 'bbands_middle', 'bbands_lower'), args: bbandsArgs }),
);

const holdFor = fc.constantFrom('1m', '5m', '30m');
const leafExtras = { holdFor };

export const priceCondition = fc.oneof(
  withOptional(
    fc.record({
      source: fc.constant('price'),
      method: fc.constant('current'),
      args: priceArgs,
      operator: levelOperator,
      value: fc.oneof(between(1, 200_000), liveOperand),
    }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('price'), method: fc.constant('change'), args: pricePeriodArgs, operator: levelOperator, value: between(-50, 50) }),
    leafExtras,
  ),
  withOptional(
    fc.record({
      source: fc.constant('price'),
      method: fc.constantFrom('high', 'low'),
      args: pricePeriodArgs,
      operator: levelOperator,
      value: between(1, 200_000),
    }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('price'), method: fc.constant('volume'), args: pricePeriodArgs, operator: levelOperator, value: between(1, 1e9) }),
    leafExtras,
  ),
);

export const taCondition = fc.oneof(
  withOptional(
    fc.record({ source: fc.constant('ta'), method: fc.constant('rsi'), args: taPeriodArgs, operator: levelOperator, value: between(1, 99) }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('ta'), method: fc.constantFrom('stoch_k', 'stoch_d'), args: stochArgs, operator: levelOperator, value: between(1, 99) }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('ta'), method: fc.constant('willr'), args: taPeriodArgs, operator: levelOperator, value: between(-99, -1) }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('ta'), method: fc.constantFrom('cci'), args: taPeriodArgs, operator: levelOperator, value: between(-300, 300) }),
    leafExtras,
  ),
  withOptional(
    fc.record({ source: fc.constant('ta'), method: fc.constant('atr'), args: taPeriodArgs, operator: levelOperator, value: between(1, 5000) }),
    leafExtras,
  ),
  withOptional(
    fc.record({
      source: fc.constant('ta'),
      method: fc.constantFrom('ema', 'sma'),
      args: taPeriodArgs,
      operator: levelOperator,
      value: fc.oneof(between(1, 200_000), liveOperand),
    }),
    leafExtras,
  ),
  withOptional(
    fc.record({
      source: fc.constant('ta'),
      method: fc.constantFrom('macd_value', 'macd_signal', 'macd_histogram'),
      args: macdArgs,
      operator: levelOperator,
      value: between(-500, 500),
    }),
    leafExtras,
  ),
  withOptional(
    fc.record({
      source: fc.constant('ta'),
      method: fc.constantFrom('bbands_upper', 'bbands_middle', 'bbands_lower'),
      args: bbandsArgs,
      operator: levelOperator,
      value: between(1, 200_000),
    }),
    leafExtras,
  ),
);

const text = fc.constantFrom('dogecoin', 'a new token listing', 'rate cuts', 'layer 2 scaling', 'bitcoin treasury');
const username = fc.constantFrom('elonmusk', 'cz_binance', 'VitalikButerin', 'saylor');

export const semanticCondition = fc.oneof(
  withOptional(
    fc.record({ source: fc.constant('tweet'), args: withOptional(fc.record({ username, text }), { minConfidence: between(60, 100) }) }),
    leafExtras,
  ),
  withOptional(fc.record({ source: fc.constant('news'), args: withOptional(fc.record({ text }), { minConfidence: between(60, 100) }) }), leafExtras),
  withOptional(
    fc.record({
      source: fc.constant('llm'),
      method: fc.constant('athena_condition'),
      args: withOptional(
        fc.record({ query: fc.constantFrom('Is market sentiment bullish?', 'Is bitcoin dominance rising?'), period: fc.constantFrom('1h', '4h', '12h') }),
        { speed: fc.constantFrom('fast', 'expert', 'adaptive') },
      ),
    }),
    leafExtras,
  ),
  fc.record({ source: fc.constant('news'), args: fc.record({ text }), operator: confidenceOperator, value: between(60, 100) }),
);

export const cronCondition = fc.oneof(
  fc.record({ source: fc.constant('cron'), method: fc.constant('once'), args: fc.record({ at: fc.constant('2026-01-01T00:30:00Z') }) }),
  fc.record({ source: fc.constant('cron'), method: fc.constant('every'), args: fc.record({ period: fc.constantFrom('1h', '1d') }) }),
);

export const leafCondition = fc.oneof(priceCondition, taCondition, semanticCondition, cronCondition);

/** Groups nest up to three deep with few members, so no query passes 32 leaves. */
export const conditionGroup: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ group: Record<string, unknown>; node: unknown }>((tie) => ({
  node: fc.oneof({ maxDepth: 2, depthIdentifier: 'group' }, leafCondition, tie('group')),
  group: withOptional(
    fc.tuple(fc.constantFrom('AND', 'OR'), fc.array(tie('node'), { minLength: 1, maxLength: 2, depthIdentifier: 'group' })).map(([op, members]) => ({ [op]: members })),
    { holdFor },
  ),
})).group;

const topGroup = fc
  .tuple(fc.constantFrom('AND', 'OR'), fc.array(fc.oneof({ withCrossShrink: true }, leafCondition, conditionGroup), { minLength: 1, maxLength: 4 }))
  .map(([op, members]) => ({ [op]: members }));

const notifyParams = withOptional(fc.record({ message: fc.constantFrom('It happened', 'Check the chart') }), {
  title: fc.constant('Alert'),
  priority: fc.constantFrom('low', 'normal', 'high'),
});
const webhookParams = withOptional(fc.record({ url: fc.constantFrom('https://hooks.example.com/eql', 'https://api.example.org/alerts?x=1') }), {
  headers: fc.constant({ 'X-Team': 'desk' }),
  payload: fc.constant({ desk: 'alpha' }),
});
const botParams = withOptional(
  fc.record({ botToken: fc.constant('123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0'), chatId: fc.constantFrom('-1001234567890', '@eql_alerts', 12345) }),
  { message: fc.constant('Triggered') },
);
const sizing = fc.oneof(
  fc.record({ size: fc.constantFrom(0.01, 1) }),
  fc.record({ amountUsd: fc.constantFrom(50, 1000) }),
  fc.record({ positionSizePercent: fc.constantFrom(5, 25, 100) }),
);
const perpSymbol = fc.constantFrom('BTC', 'ETH-PERP', 'BTC/USDT:USDT');
const marketParams = fc
  .tuple(fc.record({ exchange, symbol: perpSymbol, side: fc.constantFrom('buy', 'sell') }), sizing, fc.record({ leverage: fc.constantFrom(1, 5), reduceOnly: fc.boolean() }, { requiredKeys: [] }))
  .map(([base, size, extra]) => ({ ...base, ...size, ...extra }));
const limitParams = fc
  .tuple(marketParams, fc.constantFrom(100, 50_000), fc.boolean())
  .map(([params, price, exits]) => {
    const long = params.side === 'buy';
    return exits
      ? { ...params, price, takeProfit: { price: long ? price * 1.1 : price * 0.9 }, stopLoss: { percent: 5 } }
      : { ...params, price, timeInForce: 'GTC' };
  });
const callback = fc.oneof(
  fc.record({ type: fc.constant('notify') }),
  fc.record({ type: fc.constant('webhook'), params: webhookParams }),
  fc.record({ type: fc.constant('market_order'), params: fc.record({ exchange, amountUsd: fc.constant(100) }) }),
);
const llmParams = fc.record(
  { prompt: fc.constant('Summarize why this fired'), speed: fc.constantFrom('fast', 'expert', 'adaptive'), callback: fc.record({ action: callback }) },
  { requiredKeys: [] },
);

const actionBody = fc.oneof(
  fc.record({ type: fc.constant('notify'), params: notifyParams }),
  fc.record({ type: fc.constant('webhook'), params: webhookParams }),
  fc.record({ type: fc.constant('messenger_bot'), params: botParams }),
  fc.record({ type: fc.constant('market_order'), params: marketParams }),
  fc.record({ type: fc.constant('limit_order'), params: limitParams }),
);

const actions = fc
  .tuple(fc.option(fc.record({ type: fc.constant('llm'), params: llmParams }), { nil: undefined }), fc.array(actionBody, { minLength: 0, maxLength: 3 }))
  .filter(([llm, rest]) => llm !== undefined || rest.length > 0)
  .map(([llm, rest]) => [...(llm ? [llm] : []), ...rest].map((action, index) => ({ stepId: `step-${index + 1}`, ...action })));

export const query = withOptional(fc.record({ conditions: topGroup, actions }), {
  expiresIn: fc.constantFrom('1h', '6h', '24h', '7d', '30d'),
  repeat: withOptional(fc.record({ cooldown: fc.constantFrom('5m', '1h', '1d') }), { maxTriggers: between(1, 20) }),
});

export const queryRequest = withOptional(fc.record({ query }), {
  title: fc.constantFrom('BTC breakout', 'Daily summary'),
  description: fc.constant('Generated by fast-check'),
});

/** A JSON document with a random part replaced, removed or renamed: near-valid input for robustness. */
export const mutatedRequest = fc.tuple(queryRequest, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 2 })), { minLength: 1, maxLength: 4 })).map(
  ([request, mutations]) => {
    const copy = structuredClone(request) as unknown;
    for (const [pick, how, replacement] of mutations) mutate(copy, pick, how, replacement);
    return copy;
  },
);

function mutate(document: unknown, pick: number, how: number, replacement: unknown): void {
  const containers: Array<Record<string, unknown> | unknown[]> = [];
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node !== null && typeof node === 'object') {
      containers.push(node as Record<string, unknown>);
      stack.push(...Object.values(node as Record<string, unknown>));
    }
  }
  const target = containers[pick % containers.length];
  if (target === undefined) return;
  const keys = Object.keys(target);
  const key = keys[how % Math.max(1, keys.length)];
  if (key === undefined) return;
  const mode = how % 3;
  if (Array.isArray(target)) {
    if (mode === 0) target.splice(Number(key), 1);
    else target[Number(key)] = replacement;
  } else if (mode === 0) {
    delete target[key];
  } else if (mode === 1) {
    target[key] = replacement;
  } else {
    target[`${key}_x`] = target[key];
    delete target[key];
  }
}
