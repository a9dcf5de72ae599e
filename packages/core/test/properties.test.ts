import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costBreakdown, creditsForCalls, estimateCost, validate, type QueryRequest } from '@eql/core';
import { mutatedRequest, queryRequest, VALIDATION_NOW } from '../../../test/support/arbitraries.js';

const options = { now: VALIDATION_NOW };

describe('validator laws', () => {
  it('never throws and never fails internally, whatever JSON it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const result = validate(value, options);
        expect(result.diagnostics.some((d) => d.code === 'internal-error')).toBe(false);
        expect(result.valid).toBe(result.errors.length === 0);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on near-valid requests with random parts replaced, removed or renamed', () => {
    fc.assert(
      fc.property(mutatedRequest, fc.constantFrom('api-key' as const, 'payment' as const), (request, mode) => {
        const result = validate(request, { ...options, mode });
        expect(result.diagnostics.filter((d) => d.code === 'internal-error')).toEqual([]);
        for (const diagnostic of result.diagnostics) {
          expect(diagnostic.path === '' || diagnostic.path.startsWith('/')).toBe(true);
          expect(diagnostic.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('accepts every generated valid request, with an estimate and a cost', () => {
    fc.assert(
      fc.property(queryRequest, (request) => {
        const result = validate(request, options);
        expect(result.errors).toEqual([]);
        expect(result.valid).toBe(true);
        expect(result.simulationLlmCallsEstimate).toBeDefined();
        expect(result.estimatedCost?.credits).toBeGreaterThanOrEqual(5);
        expect(result.estimatedCost?.price).toMatch(/^\$[0-9]+\.[0-9]{2,3}$/);
      }),
      { numRuns: 300 },
    );
  });

  it('survives hostile nesting without exhausting the stack', () => {
    let conditions: Record<string, unknown> = { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 };
    for (let i = 0; i < 20_000; i += 1) conditions = { AND: [conditions] };
    const result = validate({ query: { conditions, actions: [] } });
    expect(result.valid).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('too-deep');
  });

  it('survives hostile nesting inside args, values and payloads', () => {
    // Built as text: JSON.stringify itself cannot walk this deep, but JSON.parse (and so an HTTP body) can.
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const leaf = `{"source":"price","method":"current","args":${deep},"operator":">","value":${deep}}`;
    const request = JSON.parse(
      `{"query":{"conditions":{"AND":[${leaf},${leaf}]},"actions":[{"stepId":"w","type":"webhook","params":{"url":"https://hooks.example.com","payload":${deep}}}]}}`,
    ) as unknown;
    const result = validate(request);
    expect(result.valid).toBe(false);
    expect(result.diagnostics.filter((d) => d.code === 'internal-error')).toEqual([]);
  });
});

describe('cost laws', () => {
  const calls = fc.record({ fast: fc.nat(1000), expert: fc.nat(1000), adaptive: fc.nat(1000) });
  const estimate = fc.record({ conditionCallsBySpeed: calls, actionCallsBySpeed: calls }).map((e) => ({
    ...e,
    conditionCallsUpperBound: e.conditionCallsBySpeed.fast + e.conditionCallsBySpeed.expert + e.conditionCallsBySpeed.adaptive,
    actionCallsUpperBound: e.actionCallsBySpeed.fast + e.actionCallsBySpeed.expert + e.actionCallsBySpeed.adaptive,
  }));

  it('credits are 5 + 5 per fast call + 18 per expert or adaptive call', () => {
    fc.assert(
      fc.property(estimate, (e) => {
        const fast = e.conditionCallsBySpeed.fast + e.actionCallsBySpeed.fast;
        const expert = e.conditionCallsBySpeed.expert + e.actionCallsBySpeed.expert;
        const adaptive = e.conditionCallsBySpeed.adaptive + e.actionCallsBySpeed.adaptive;
        expect(creditsForCalls(e)).toBe(5 + 5 * fast + 18 * (expert + adaptive));
      }),
    );
  });

  it('credits are monotone in LLM calls: one more call of any speed never costs less', () => {
    fc.assert(
      fc.property(estimate, fc.constantFrom('conditionCallsBySpeed' as const, 'actionCallsBySpeed' as const), fc.constantFrom('fast' as const, 'expert' as const, 'adaptive' as const), (e, side, speed) => {
        const more = structuredClone(e);
        more[side][speed] += 1;
        expect(creditsForCalls(more)).toBeGreaterThan(creditsForCalls(e));
      }),
    );
  });

  it('the breakdown of an estimate adds up to it: base, each llm condition, each llm step', () => {
    fc.assert(
      fc.property(queryRequest, (request: Record<string, unknown>) => {
        const query = (request as unknown as QueryRequest).query;
        const lines = costBreakdown(query);
        expect(lines[0]).toMatchObject({ part: 'base', credits: 5 });
        expect(lines.reduce((sum, line) => sum + line.credits, 0)).toBe(estimateCost(query).estimatedCost.credits);
        const { simulationLlmCallsEstimate: calls } = estimateCost(query);
        expect(lines.filter((line) => line.part === 'condition').reduce((sum, line) => sum + line.calls, 0)).toBe(calls.conditionCallsUpperBound);
        expect(lines.filter((line) => line.part === 'action').reduce((sum, line) => sum + line.calls, 0)).toBe(calls.actionCallsUpperBound);
        for (const line of lines.slice(1)) expect(line.pointer).toMatch(/^\/query\/(conditions|actions)\//);
      }),
      { numRuns: 300 },
    );
  });

  it('a longer lifetime never lowers the estimate of a valid query', () => {
    const lifetimes = ['1h', '6h', '24h', '7d', '30d'];
    fc.assert(
      fc.property(queryRequest, (request: Record<string, unknown>) => {
        const query = (request as unknown as QueryRequest).query;
        const credits = lifetimes.map((expiresIn) => estimateCost({ ...query, expiresIn }).estimatedCost.credits);
        for (let i = 1; i < credits.length; i += 1) expect(credits[i]).toBeGreaterThanOrEqual(credits[i - 1] as number);
      }),
      { numRuns: 200 },
    );
  });
});
