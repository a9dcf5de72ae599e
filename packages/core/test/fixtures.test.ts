import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validate, type ValidateOptions } from '@eql/core';

/**
 * Table tests from fixtures/eql/<case>/: input.json is the request, expected.json what the validator
 * must find, options.json (optional) the validation options ({"mode": "payment", "now": "<ISO>"}).
 * Expected errors and warnings are listed as {code, path}; the lists must match exactly.
 */
interface Finding {
  code: string;
  path: string;
}

interface Expected {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
  simulationLlmCallsEstimate?: unknown;
  estimatedCost?: unknown;
}

const root = new URL('../../../fixtures/eql/', import.meta.url);
const cases = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, root), 'utf8'));
const byPlace = (a: Finding, b: Finding) => `${a.path} ${a.code}`.localeCompare(`${b.path} ${b.code}`);

describe('fixtures/eql', () => {
  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases)('%s', (name) => {
    const input = readJson(`${name}/input.json`);
    const expected = readJson(`${name}/expected.json`) as Expected;
    const rawOptions = existsSync(new URL(`${name}/options.json`, root))
      ? (readJson(`${name}/options.json`) as { mode?: ValidateOptions['mode']; now?: string })
      : {};
    const options: ValidateOptions = { now: Date.parse(rawOptions.now ?? '2026-01-01T00:00:00Z') };
    if (rawOptions.mode) options.mode = rawOptions.mode;

    const result = validate(input, options);
    const found = (severity: string) =>
      result.diagnostics.filter((d) => d.severity === severity).map(({ code, path }) => ({ code, path })).sort(byPlace);

    expect({ valid: result.valid, errors: found('error'), warnings: found('warning') }).toEqual({
      valid: expected.valid,
      errors: [...expected.errors].sort(byPlace),
      warnings: [...expected.warnings].sort(byPlace),
    });
    expect(result.errors).toHaveLength(expected.errors.length);
    expect(result.warnings).toHaveLength(expected.warnings.length);
    if (expected.simulationLlmCallsEstimate !== undefined) {
      expect(result.simulationLlmCallsEstimate).toEqual(expected.simulationLlmCallsEstimate);
    }
    if (expected.estimatedCost !== undefined) expect(result.estimatedCost).toEqual(expected.estimatedCost);
    if (result.valid && (options.mode ?? 'api-key') === 'api-key') expect(result.estimatedCost).toBeDefined();
    if (options.mode === 'payment') expect(result.estimatedCost).toBeUndefined();
  });
});
