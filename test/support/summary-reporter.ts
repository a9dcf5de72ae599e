import type { Reporter, TestModule } from 'vitest/node';

/** Skipped tests named one a line in the summary, at most (a run filtered with `-t` skips hundreds). */
const SKIPPED_NAMED = 30;

/**
 * Ends every run with the skipped tests (each named, its title says why), a line
 * `N passed, N failed, N skipped`, and last one plain line `N passed, N failed`, which CI and the
 * fresh-clone check read. A test file that fails to load and an unhandled error each count as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    const skipped: string[] = [];
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') failedHere += 1;
        else if (result.state === 'skipped') skipped.push(`${module.relativeModuleId} > ${test.fullName}${result.note ? ` (${result.note})` : ''}`);
      }
      if (failedHere === 0 && module.state() === 'failed') failedHere = 1;
      failed += failedHere;
    }
    const lines = skipped.slice(0, SKIPPED_NAMED).map((name) => `skipped: ${name}`);
    if (skipped.length > SKIPPED_NAMED) lines.push(`skipped: … and ${skipped.length - SKIPPED_NAMED} more`);
    process.stdout.write(`\n${lines.map((line) => `${line}\n`).join('')}${passed} passed, ${failed} failed, ${skipped.length} skipped\n${passed} passed, ${failed} failed\n`);
  }
}
