// Queries to start from, in the JSON form (the editor converts them to the text form on request).
export const EXAMPLES: Array<{ name: string; request: unknown }> = [
  {
    name: 'BTC above a level',
    request: {
      title: 'BTC above 100k',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 }] },
        actions: [{ stepId: 'notify', type: 'notify', params: { message: 'BTC is above 100k' } }],
        expiresIn: '7d',
      },
    },
  },
  {
    name: 'ETH oversold on RSI',
    request: {
      title: 'ETH RSI below 30',
      query: {
        conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'ETH', timeframe: '1h', period: 14 }, operator: '<', value: 30 }] },
        actions: [{ stepId: 'notify', type: 'notify', params: { message: 'ETH is oversold (RSI < 30 on 1h)' } }],
        expiresIn: '3d',
      },
    },
  },
  {
    name: 'BTC RSI mean reversion on paper',
    request: {
      title: 'Buy BTC when the 5m RSI crosses below 30, 1 % stop and take profit',
      query: {
        conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '5m', period: 14 }, operator: 'crosses_below', value: 30 }] },
        actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', size: 0.05, takeProfit: { percent: 1 }, stopLoss: { percent: 1 } } }],
        repeat: { cooldown: '1h', maxTriggers: 20 },
        expiresIn: '3d',
      },
    },
  },
];

export function exampleText(index: number): string {
  return `${JSON.stringify(EXAMPLES[index]?.request ?? EXAMPLES[0]?.request, null, 2)}\n`;
}
