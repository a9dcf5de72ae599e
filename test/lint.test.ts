import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// typescript-eslint over the whole repository is part of the tests: a lint error fails the run.
describe('lint', () => {
  // Type-aware linting of the whole repository takes one to three minutes on a 2-core machine beside the
  // other test files (196 s on a slow day): the timeout leaves room for a slower one.
  it('typescript-eslint reports no problems', { timeout: 600_000 }, async () => {
    const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((result) =>
      result.messages.map((message) => `${result.filePath}:${message.line}:${message.column} ${message.ruleId ?? ''} ${message.message}`),
    );
    expect(problems).toEqual([]);
  });
});
