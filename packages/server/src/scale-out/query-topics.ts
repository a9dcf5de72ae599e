import { leafConditions, type Topic } from '@eql/core';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The price topic a series (a condition, or a series operand of one) reads: its symbol, on its exchange when it names one. */
function priceTopic(series: Record<string, unknown>): Topic | undefined {
  const args = isRecord(series.args) ? series.args : {};
  if (typeof args.symbol !== 'string' || args.symbol === '') return undefined;
  return { source: 'price', symbol: args.symbol, ...(typeof args.exchange === 'string' && args.exchange !== '' ? { exchange: args.exchange } : {}) };
}

/**
 * The topics a stored query request listens to: the prices of its `price` and `ta` conditions (and of
 * series they compare with), the accounts of its `tweet` conditions, the news. Tolerates any shape.
 */
export function topicsOfRequest(request: unknown): Topic[] {
  const query = isRecord(request) ? request.query : undefined;
  const topics: Topic[] = [];
  for (const { node } of leafConditions(query)) {
    if (node.source === 'price' || node.source === 'ta') {
      const own = priceTopic(node);
      if (own) topics.push(own);
      if (isRecord(node.value)) {
        const operand = priceTopic(node.value);
        if (operand) topics.push(operand);
      }
    } else if (node.source === 'tweet') {
      const args = isRecord(node.args) ? node.args : {};
      if (typeof args.username === 'string') topics.push({ source: 'tweet', username: args.username.replace(/^@+/, '').toLowerCase() });
    } else if (node.source === 'news') topics.push({ source: 'news' });
  }
  return topics;
}
