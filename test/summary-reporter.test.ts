import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SummaryReporter from './support/summary-reporter.js';

// The reporter's last line is what CI reads (`.ci/run` greps `^N passed, N failed$`): it must stay exactly
// that, with the skipped tests reported on the lines before it.

type State = 'passed' | 'failed' | 'skipped' | 'pending';

/** A test module as the reporter reads it: its tests' states and names, and the module's own state. */
function moduleOf(path: string, tests: Array<[string, State, string?]>, state: 'passed' | 'failed' = 'passed'): TestModule {
  return {
    relativeModuleId: path,
    state: () => state,
    children: {
      allTests: () => tests.map(([fullName, testState, note]) => ({ fullName, result: () => ({ state: testState, note }) })),
    },
  } as unknown as TestModule;
}

function report(modules: TestModule[], unhandledErrors: unknown[] = []): string[] {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  new SummaryReporter().onTestRunEnd(modules, unhandledErrors);
  const text = write.mock.calls.map(([chunk]) => String(chunk)).join('');
  write.mockRestore();
  return text.trimEnd().split('\n');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the summary reporter', () => {
  it('ends with `N passed, N failed`, after the skipped tests and `N passed, N failed, N skipped`', () => {
    const lines = report([
      moduleOf('a.test.ts', [
        ['one', 'passed'],
        ['two', 'failed'],
        ['README.md:96 node server.mjs (a server that runs until it is stopped)', 'skipped'],
      ]),
      moduleOf('b.test.ts', [
        ['three', 'passed'],
        ['four', 'skipped', 'no Chromium'],
      ]),
    ]);
    expect(lines).toEqual([
      '',
      'skipped: a.test.ts > README.md:96 node server.mjs (a server that runs until it is stopped)',
      'skipped: b.test.ts > four (no Chromium)',
      '2 passed, 1 failed, 2 skipped',
      '2 passed, 1 failed',
    ]);
    expect(lines.filter((line) => /^[0-9]+ passed, [0-9]+ failed$/.test(line))).toEqual(['2 passed, 1 failed']);
  });

  it('counts a file that failed to load and an unhandled error as failures, and says 0 skipped', () => {
    const lines = report([moduleOf('broken.test.ts', [], 'failed'), moduleOf('fine.test.ts', [['one', 'passed']])], [new Error('late')]);
    expect(lines.slice(-2)).toEqual(['1 passed, 2 failed, 0 skipped', '1 passed, 2 failed']);
    expect(lines.some((line) => line.startsWith('skipped:'))).toBe(false);
  });

  it('names at most 30 skipped tests (a run filtered with -t skips hundreds), and counts them all', () => {
    const lines = report([moduleOf('many.test.ts', Array.from({ length: 45 }, (_, index) => [`t${index}`, 'skipped'] as [string, State]))]);
    expect(lines.filter((line) => line.startsWith('skipped: many.test.ts > '))).toHaveLength(30);
    expect(lines.slice(-3)).toEqual(['skipped: … and 15 more', '0 passed, 0 failed, 45 skipped', '0 passed, 0 failed']);
  });
});
