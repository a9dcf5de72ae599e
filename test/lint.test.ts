import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// typescript-eslint over the whole repository is part of the tests: a lint error fails the run.
describe('lint', () => {
  it('typescript-eslint reports no problems', { timeout: 240_000 }, async () => {
    const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((result) =>
      result.messages.map((message) => `${result.filePath}:${message.line}:${message.column} ${message.ruleId ?? ''} ${message.message}`),
    );
    expect(problems).toEqual([]);
  });
});
