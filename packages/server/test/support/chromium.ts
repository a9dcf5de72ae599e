import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, it } from 'vitest';

/**
 * Debian's Chromium for the browser tests (driven by playwright-core): the binary of the `chromium`
 * package, installed with apt-get when it is missing and the tests run as root. Without it a suite
 * reports itself skipped with the reason, or fails under CI=true (where it must be there).
 */

/** The browser binary of Debian's `chromium` package (/usr/bin/chromium is a shell wrapper around it). */
export const CHROMIUM = process.env.EQL_TEST_CHROMIUM ?? '/usr/lib/chromium/chromium';

/** The flags the tests run it with: no sandbox (root in a container), no background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'];

const run = promisify(execFile);
/** Other test files install Debian packages too (the editors' Neovim): apt-get waits for dpkg's lock instead of failing at once. */
const WAIT_FOR_DPKG_LOCK = ['-o', 'DPkg::Lock::Timeout=300'];
let available: Promise<string | undefined> | undefined;

/** Why there is no Chromium to test with (undefined when there is one), installing Debian's when it can. */
export function chromiumProblem(): Promise<string | undefined> {
  available ??= (async () => {
    if (existsSync(CHROMIUM)) return undefined;
    if (process.env.EQL_TEST_CHROMIUM !== undefined) return `EQL_TEST_CHROMIUM names ${CHROMIUM}, which does not exist`;
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return `no ${CHROMIUM} (install Debian's chromium package, or run the tests as root to have it installed)`;
    try {
      await run('apt-get', [...WAIT_FOR_DPKG_LOCK, 'install', '-y', '-q', '--no-install-recommends', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 });
    } catch (first) {
      // The package lists may be missing (a fresh container): read them, then try again.
      try {
        await run('apt-get', [...WAIT_FOR_DPKG_LOCK, 'update', '-q'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 });
        await run('apt-get', [...WAIT_FOR_DPKG_LOCK, 'install', '-y', '-q', '--no-install-recommends', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 600_000 });
      } catch (second) {
        return `apt-get install chromium failed: ${((second as Error).message || (first as Error).message).split('\n')[0] ?? ''}`;
      }
    }
    return existsSync(CHROMIUM) ? undefined : `apt-get installed chromium, but ${CHROMIUM} is not there`;
  })();
  return available;
}

/** `describe` when Chromium is there; else a skipped suite named with the reason, or a failing one under CI=true. */
export async function describeWithChromium(name: string, body: () => void): Promise<void> {
  const problem = await chromiumProblem();
  if (problem === undefined) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs Chromium (CI=true): ${problem}`, () => {
        throw new Error(problem);
      });
    });
    return;
  }
  describe.skip(`Chromium not available (${problem}): skipped (${name})`, body);
}
