import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, isDiagnosticCode } from '../src/index.js';

/** The codes of every `x-diagnostics` annotation of the schema (the validator's own codes are typed by DIAGNOSTIC_CODES). */
function annotationCodes(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) annotationCodes(item, found);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-diagnostics' && value !== null && typeof value === 'object') {
        for (const override of Object.values(value as Record<string, unknown>)) found.add(String((override as { code?: unknown }).code));
      } else annotationCodes(value, found);
    }
  }
  return found;
}

describe('DIAGNOSTIC_CODES', () => {
  it('holds every code of the schema\'s x-diagnostics annotations', () => {
    const schema: unknown = JSON.parse(readFileSync(new URL('../../../schemas/eql.schema.json', import.meta.url), 'utf8'));
    const codes = [...annotationCodes(schema)];
    expect(codes.length).toBeGreaterThan(10);
    expect(codes.filter((code) => !isDiagnosticCode(code))).toEqual([]);
  });

  it('names each code in lower kebab case, with a summary and a severity', () => {
    for (const [code, info] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(info.summary).not.toBe('');
      expect(info.severity.length).toBeGreaterThan(0);
    }
    expect(isDiagnosticCode('toString')).toBe(false);
  });
});
