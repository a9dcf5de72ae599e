import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generate } from '../scripts/codegen.mjs';

// The TypeScript types and schema module derive from schemas/eql.schema.json; CI fails when they drift.
describe('generated code', () => {
  it('matches schemas/eql.schema.json (run `npm run codegen` after editing the schema)', async () => {
    const files = (await generate()) as Record<string, string>;
    for (const [name, content] of Object.entries(files)) {
      const committed = await readFile(new URL(`../packages/core/src/generated/${name}`, import.meta.url), 'utf8');
      expect(committed, `${name} is out of date`).toBe(content);
    }
  });
});
