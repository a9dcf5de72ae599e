import { validate, type QueryRequest } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { ModelError } from '@eql/llm';
import { QueryBuilder, extractRequest, systemPrompt } from '../src/index.js';
import { PROMPT_EXAMPLES } from '../src/model/prompt.js';
import { ScriptedModel, jsonBlocks } from '../src/testing.js';

/** docs/builder.md, "With a model": draft, validate, repair with the validator's errors, fall back to the grammar. */

const NOW = Date.UTC(2026, 0, 15, 12, 0);

const GOOD: QueryRequest = {
  title: 'ETH breakout',
  query: {
    conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'ETH' }, operator: 'crosses_above', value: 4000 }] },
    actions: [{ stepId: 'notify-1', type: 'notify', params: { message: 'ETH crossed 4,000' } }],
  },
};

const INVALID_LLM_PERIOD = {
  query: {
    conditions: { AND: [{ source: 'llm', method: 'athena_condition', args: { query: 'Is the market euphoric?', period: '30m' } }] },
    actions: [{ stepId: 'notify-1', type: 'notify', params: { message: 'euphoria' } }],
  },
};

const fenced = (value: unknown, lead = 'Here it is.') => `${lead}\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n`;

describe('the model path', () => {
  it('accepts a good draft: one call, the system prompt from the schema, the query in the reply', async () => {
    const model = new ScriptedModel([fenced(GOOD)]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'tell me when ETH breaks above 4k', speed: 'expert' });
    expect(reply.usedModel).toBe(true);
    expect(reply.query).toEqual(GOOD);
    expect(reply.state.query).toEqual(GOOD);
    expect(jsonBlocks(reply.markdown)).toEqual([GOOD]);
    expect(reply.markdown).toContain('drafted by the model');
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0];
    expect(request?.speed).toBe('expert');
    const system = request?.messages[0]?.content ?? '';
    expect(request?.messages[0]?.role).toBe('system');
    for (const fact of ['bbands_upper', 'stoch_d', '12h', 'crosses_below', 'messenger_bot', 'athena_condition', 'tokenAnalysis']) expect(system).toContain(fact);
    const user = request?.messages.at(-1)?.content ?? '';
    expect(user).toContain('My message: tell me when ETH breaks above 4k');
    expect(user).toContain('"crosses_above"');
  });

  it('sends the validator errors back and accepts the repair', async () => {
    const model = new ScriptedModel([fenced(INVALID_LLM_PERIOD), fenced({ ...INVALID_LLM_PERIOD, query: { ...INVALID_LLM_PERIOD.query, conditions: { AND: [{ source: 'llm', method: 'athena_condition', args: { query: 'Is the market euphoric?', period: '1h' } }] } } })]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'check every 30 minutes whether the market is euphoric' });
    expect(reply.usedModel).toBe(true);
    expect(model.requests).toHaveLength(2);
    const errors = validate(INVALID_LLM_PERIOD, { now: NOW }).errors;
    expect(errors.length).toBeGreaterThan(0);
    const repair = model.requests[1]?.messages ?? [];
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: fenced(INVALID_LLM_PERIOD) });
    expect(repair.at(-1)?.role).toBe('user');
    for (const error of errors) expect(repair.at(-1)?.content).toContain(error);
    expect((reply.query?.query.conditions as { AND: Array<{ args: { period: string } }> }).AND[0]?.args.period).toBe('1h');
  });

  it('falls back to the grammar when the drafts never validate (2 repairs)', async () => {
    const model = new ScriptedModel([fenced(INVALID_LLM_PERIOD), fenced(INVALID_LLM_PERIOD), fenced(INVALID_LLM_PERIOD), fenced(GOOD)]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'alert me when BTC is above 70k' });
    expect(model.requests).toHaveLength(3);
    expect(reply.usedModel).toBe(false);
    expect(reply.markdown).toContain('did not pass validation after 2 repairs');
    expect(reply.markdown).toContain('offline grammar');
    expect(reply.query?.query.conditions).toEqual({ AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 70000 }] });
  });

  it('falls back to the grammar on a ModelError, and says why', async () => {
    const model = new ScriptedModel([new ModelError('LLM_TIMEOUT', 'no answer in 30 s')]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'when ETH drops 10% in 1h notify me' });
    expect(model.requests).toHaveLength(1);
    expect(reply.usedModel).toBe(false);
    expect(reply.markdown).toContain('LLM_TIMEOUT');
    expect(reply.query?.query.conditions).toEqual({ AND: [{ source: 'price', method: 'change', args: { symbol: 'ETH', period: '1h' }, operator: '<=', value: -10 }] });
  });

  it('passes on a clarifying question the model asks instead of a draft', async () => {
    const model = new ScriptedModel(['How much BTC should I buy when the RSI is oversold?']);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'buy BTC when RSI is oversold' });
    expect(model.requests).toHaveLength(1);
    expect(reply.usedModel).toBe(true);
    expect(reply.query).toBeUndefined();
    expect(reply.markdown).toBe('How much BTC should I buy when the RSI is oversold?\n');
    expect(reply.state.pending?.message).toBe('buy BTC when RSI is oversold');
    expect(systemPrompt('api-key')).toContain('never invent thresholds, order sizes, URLs or chat ids');
  });

  it('asks for a JSON block when the reply has none', async () => {
    const model = new ScriptedModel(['Sure, I will set that up for you!', fenced(GOOD)]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'ETH above 4k' });
    expect(reply.usedModel).toBe(true);
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('no ```json code block');
  });

  it('gives the model the current query, the history and the grammar reading as a hint', async () => {
    const builder = new QueryBuilder({ model: new ScriptedModel([new ModelError('LLM_UPSTREAM_ERROR', 'down')]), mode: 'api-key', now: () => NOW });
    const first = await builder.reply({ message: 'alert me when BTC is above 70k' });
    const model = new ScriptedModel([fenced(GOOD)]);
    const history = [
      { role: 'user' as const, content: 'alert me when BTC is above 70k' },
      { role: 'assistant' as const, content: first.markdown },
    ];
    await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: 'use 75k instead', history, state: first.state });
    const messages = model.requests[0]?.messages ?? [];
    expect(messages.slice(1, 3)).toEqual(history);
    const user = messages.at(-1)?.content ?? '';
    expect(user).toContain('Current query');
    expect(user).toContain(JSON.stringify(first.query));
    expect(user).toContain('"value":75000');
  });

  it('in payment mode takes the orders out of a draft and explains, without a repair round', async () => {
    const trade = {
      query: {
        conditions: GOOD.query.conditions,
        actions: [{ stepId: 'buy-1', type: 'market_order', params: { exchange: 'binance', symbol: 'ETH', side: 'buy', amountUsd: 100 } }],
      },
    };
    const model = new ScriptedModel([fenced(trade)]);
    const reply = await new QueryBuilder({ model, mode: 'payment', now: () => NOW }).reply({ message: 'buy $100 of ETH when it breaks 4k' });
    expect(model.requests).toHaveLength(1);
    expect(reply.usedModel).toBe(true);
    expect(reply.query?.query.actions.map((action) => action.type)).toEqual(['notify']);
    expect(validate(reply.query, { mode: 'payment', now: NOW }).valid).toBe(true);
    expect(reply.markdown).toContain('Orders need an API key');
    expect(systemPrompt('payment')).toContain('NEVER use market_order');
  });
});

describe('the system prompt', () => {
  it('shows only examples the validator accepts, each in the prompt of its mode', () => {
    expect(PROMPT_EXAMPLES.length).toBeGreaterThanOrEqual(3);
    for (const [message, request] of PROMPT_EXAMPLES) {
      expect(validate(request, { now: Date.UTC(2026, 0, 1) }).errors, message).toEqual([]);
      expect(systemPrompt('api-key')).toContain(JSON.stringify(request));
      const trades = request.query.actions.some((action) => action.type === 'market_order' || action.type === 'limit_order');
      expect(systemPrompt('payment').includes(JSON.stringify(request))).toBe(!trades);
    }
  });
});

describe('what the model is not asked', () => {
  it('a "yes" to a pending reading and a bare "start over" are answered by the grammar', async () => {
    const model = new ScriptedModel([new ModelError('LLM_UPSTREAM_ERROR', 'down')]);
    const builder = new QueryBuilder({ model, mode: 'api-key', now: () => NOW });
    const unclear = await builder.reply({ message: 'when BTC blorps above 70k' });
    expect(model.requests).toHaveLength(1);
    const yes = await builder.reply({ message: 'yes', state: unclear.state });
    expect(yes.query?.query.conditions).toEqual({ AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 70000 }] });
    const reset = await builder.reply({ message: 'start over', state: yes.state });
    expect(reset.state.query).toBeUndefined();
    expect(model.requests).toHaveLength(1);
  });
});

describe('extractRequest', () => {
  it('reads fences, stray objects and bare queries; forgives trailing commas', () => {
    expect(extractRequest(fenced(GOOD))).toEqual({ request: GOOD });
    expect(extractRequest(`Sure:\n\`\`\`JSON\n${JSON.stringify(GOOD)}\n\`\`\``)).toEqual({ request: GOOD });
    expect(extractRequest(`the query is ${JSON.stringify(GOOD)} and that is all`)).toEqual({ request: GOOD });
    expect(extractRequest(`\`\`\`\n${JSON.stringify(GOOD.query)}\n\`\`\``)).toEqual({ request: { query: GOOD.query } });
    expect(extractRequest('```json\n{"query": {"conditions": {"AND": []}, "actions": [],},}\n```')).toEqual({ request: { query: { conditions: { AND: [] }, actions: [] } } });
    expect(extractRequest(`${fenced({ draft: 1 })}${fenced(GOOD)}`)).toEqual({ request: GOOD });
  });

  it('says what is wrong with a reply it cannot use', () => {
    expect(extractRequest('no code here')).toEqual({ problem: 'the reply has no ```json code block' });
    expect(extractRequest('```json\n{"query": \n```')).toMatchObject({ problem: expect.stringContaining('does not parse') as string });
    expect(extractRequest('```json\n{"hello": "world"}\n```')).toMatchObject({ problem: expect.stringContaining('not a query request') as string });
  });
});
