import { readdirSync, readFileSync } from 'node:fs';
import { validate, type QueryRequest, type ValidationMode } from '@eql/core';
import { describe, expect, it } from 'vitest';
import { QueryBuilder } from '../src/index.js';
import { jsonBlocks } from '../src/testing.js';

/** fixtures/builder: every phrasing case gives exactly the expected query (docs/builder.md). */

interface Case {
  message: string;
  mode?: ValidationMode;
  expected: Partial<QueryRequest> & { query: QueryRequest['query'] };
}

const DIR = new URL('../../../fixtures/builder/', import.meta.url);
const NOW = Date.UTC(2026, 0, 15, 12, 0);
const cases = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ name: file.replace(/\.json$/, ''), fixture: JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Case }));

describe('builder phrasing table (fixtures/builder)', () => {
  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('$name', async ({ fixture }) => {
    const mode = fixture.mode ?? 'api-key';
    const reply = await new QueryBuilder({ mode, now: () => NOW }).reply({ message: fixture.message });
    expect(reply.usedModel).toBe(false);
    expect(reply.query, reply.markdown).toBeDefined();
    const request = reply.query as QueryRequest;
    expect(request.query).toEqual(fixture.expected.query);
    if (fixture.expected.title !== undefined) expect(request.title).toBe(fixture.expected.title);
    expect(validate(request, { mode, now: NOW }).valid).toBe(true);
    expect(reply.validation?.valid).toBe(true);
    const blocks = jsonBlocks(reply.markdown);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toEqual(request);
  });
});
