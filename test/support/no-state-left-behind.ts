import { config as rxjsConfig } from 'rxjs';
import { afterAll, expect, vi } from 'vitest';

/**
 * The test files of a worker share one module registry and one process (`isolate: false` in
 * vitest.config.ts): a file must leave nothing behind that the next one would run under. Run around every
 * file (a setup file of the shared project): it fails the file that left fake timers on, changed
 * `process.env`, or left RxJS's global error hooks replaced.
 */
const env = { ...process.env };
const rxjsHooks = { onUnhandledError: rxjsConfig.onUnhandledError, onStoppedNotification: rxjsConfig.onStoppedNotification };

/** The names of the variables set, changed or removed since the file started (names only: values may be secrets). */
function changedVariables(): string[] {
  const names = new Set([...Object.keys(env), ...Object.keys(process.env)]);
  return [...names].filter((name) => env[name] !== process.env[name]).sort();
}

afterAll(() => {
  expect(vi.isFakeTimers(), 'fake timers were left on: call vi.useRealTimers()').toBe(false);
  expect(changedVariables(), 'process.env was left changed: put these back as the file found them').toEqual([]);
  expect({ onUnhandledError: rxjsConfig.onUnhandledError, onStoppedNotification: rxjsConfig.onStoppedNotification }, "RxJS's config was left changed").toEqual(rxjsHooks);
});
