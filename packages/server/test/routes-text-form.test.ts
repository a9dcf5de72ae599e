import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/auth/api-keys.js';
import { at, call, errorCode, json, testHost, type TestHost } from './support/host.js';

/** Query requests in the text form over HTTP (`content-type: text/x-eql`), read with @eql/syntax's loadDocument. */

let host: TestHost;
let key: CreatedKey;
beforeAll(async () => {
  host = await testHost();
  key = await host.newKey();
});
afterAll(async () => host.close());

const TEXT = `title "BTC above a million"
when all of
  price of BTC > 1000000
then
  notify "BTC is above a million" as alert
expires in 24h
`;
const text = { 'content-type': 'text/x-eql' };

describe('the text form over HTTP', () => {
  it('validates and creates a query sent in the text form, as its JSON would be', async () => {
    const validated = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw: TEXT, headers: text });
    expect(validated.statusCode).toBe(200);
    expect(json(validated)).toMatchObject({ valid: true, estimatedCost: { credits: 5 } });
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, raw: TEXT, headers: text });
    expect(created.statusCode).toBe(201);
    const polled = json(await call(host.app, { url: `/v2/auto/queries/${json(created).queryId as string}`, key }));
    expect(polled).toMatchObject({ status: 'active', title: 'BTC above a million' });
    expect(at(polled, 'latestEvaluation', 'conditionStates', 0)).toMatchObject({ source: 'price', method: 'current', threshold: 1_000_000 });
  });

  it('answers syntax errors with 400 invalid_syntax, each with its line and column', async () => {
    const broken = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw: 'when price of > 5\nthen notify "x" as n', headers: text });
    expect(broken.statusCode).toBe(400);
    expect(errorCode(broken)).toBe('invalid_syntax');
    const errors = at(json(broken), 'error', 'details', 'errors') as Array<{ message: string; line: number; column: number }>;
    expect(errors[0]).toMatchObject({ line: 1, column: 15 });
    expect(errors[0]?.message).toMatch(/expected/);
  });

  it('names every mistake in one answer: the syntax errors and the findings of the parts read cleanly', async () => {
    const raw = 'when all of\n  price off BTC > 5\n  llm athena_condition "x?" every 30m\nthen notify "x" as n\n';
    const broken = await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, raw, headers: text });
    expect(broken.statusCode).toBe(400);
    const details = at(json(broken), 'error', 'details') as { errors: Array<{ message: string; line: number }>; diagnostics: Array<{ code: string; line: number; path: string }> };
    expect(details.errors).toEqual([{ message: "'off' is not a word of EQL: did you mean 'of'?", line: 2, column: 9 }]);
    expect(details.diagnostics).toEqual([expect.objectContaining({ code: 'llm-period-too-short', line: 3, path: '/query/conditions/AND/1/args/period' })]);
  });
});
