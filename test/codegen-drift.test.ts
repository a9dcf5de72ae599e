import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generate } from '../scripts/codegen.mjs';

// The TypeScript types and schema modules derive from schemas/*.schema.json; CI fails when they drift.
describe('generated code', () => {
  it('matches schemas/eql.schema.json and schemas/ingest.schema.json (run `npm run codegen` after editing a schema)', async () => {
    const files = (await generate()) as Record<string, string>;
    for (const [name, content] of Object.entries(files)) {
      const committed = await readFile(new URL(`../${name}`, import.meta.url), 'utf8');
      expect(committed, `${name} is out of date`).toBe(content);
    }
  });
});
