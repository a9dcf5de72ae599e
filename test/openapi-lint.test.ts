import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// schemas/openapi.json through Redocly CLI's linter (the recommended rules, redocly.yaml): no error. The
// warnings left are of three rules, each for a reason: the EQL schema says "one of these keys" with
// `required` inside `oneOf` branches (no-required-schema-properties-undefined) and discriminates inline
// branches (no-illogical-composition-keywords), both valid JSON Schema 2020-12; and ping, readiness and the
// streams' sibling routes answer no 4xx (operation-4xx-response).

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
const ALLOWED_WARNINGS = new Set(['no-required-schema-properties-undefined', 'no-illogical-composition-keywords', 'operation-4xx-response']);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

it('Redocly CLI lints schemas/openapi.json with no error, and warnings only of the rules allowed', { timeout: 60_000 }, async () => {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [BIN, 'lint', 'schemas/openapi.json', '--format=json'], { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
      // Exit 1 means problems were found: the report says which.
      if (error && out === '') reject(new Error(`redocly lint failed: ${err}`));
      else resolve(out);
    });
  });
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
  const errors = report.problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
  expect(errors).toEqual([]);
  expect(report.totals.errors).toBe(0);
  const unexpected = report.problems.filter((problem) => !ALLOWED_WARNINGS.has(problem.ruleId)).map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
  expect(unexpected).toEqual([]);
});
