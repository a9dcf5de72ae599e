/**
 * The order in which optional parameters are printed inside `( … )`: the order of the schema.
 * Parameters not listed (unknown ones, which the validator reports) follow in their own order.
 */
export const OPTION_ORDER: readonly string[] = [
  // condition args
  'timeframe',
  'period',
  'fastPeriod',
  'slowPeriod',
  'signalPeriod',
  'stdDev',
  'smoothPeriod',
  'atrPeriod',
  'multiplier',
  'acceleration',
  'maxAcceleration',
  'conversionPeriod',
  'basePeriod',
  'spanPeriod',
  'displacement',
  'analysisType',
  'speed',
  'minConfidence',
  'startAt',
  'exchange',
  // action params
  'title',
  'priority',
  'headers',
  'payload',
  'body',
  'contentType',
  'assetMetadata',
  'timeInForce',
  'leverage',
  'reduceOnly',
  'takeProfit',
  'stopLoss',
  'trailingStop',
  'percent',
  // repeat
  'maxTriggers',
];

/** Keys in printing order: the listed ones first, then the rest as they come. */
export function orderedKeys(keys: readonly string[]): string[] {
  const rank = (key: string) => {
    const index = OPTION_ORDER.indexOf(key);
    return index === -1 ? OPTION_ORDER.length : index;
  };
  return keys
    .map((key, index) => ({ key, index }))
    .sort((a, b) => rank(a.key) - rank(b.key) || a.index - b.index)
    .map(({ key }) => key);
}

/** Parameters that hold prose: printed in quotes even when a bare word would do (`title "Alert"`). */
export const TEXT_KEYS: ReadonlySet<string> = new Set(['title', 'message', 'prompt', 'url', 'text', 'query', 'username', 'botToken', 'description', 'body', 'contentType']);

/** Order parameters written as an exit level (`takeProfit 110000`, `stopLoss 5%`, `trailingStop 3%`). */
export const EXIT_LEVEL_KEYS: ReadonlySet<string> = new Set(['takeProfit', 'stopLoss', 'trailingStop']);

/** The action types and the keyword that starts each in the text. */
export const ACTION_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ['notify', 'notify'],
  ['webhook', 'webhook'],
  ['messenger_bot', 'bot'],
  ['llm', 'llm'],
  ['market_order', 'market'],
  ['limit_order', 'limit'],
  ['close_position', 'close'],
]);

export const OPERATOR_WORDS: ReadonlyMap<string, string> = new Map([
  ['>', '>'],
  ['>=', '>='],
  ['<', '<'],
  ['<=', '<='],
  ['==', '=='],
  ['!=', '!='],
  ['crosses_above', 'crosses above'],
  ['crosses_below', 'crosses below'],
]);
