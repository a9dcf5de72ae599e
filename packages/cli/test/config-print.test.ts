import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `eql config print` as an operator runs it (a real child process with its own environment): the
// effective configuration with secrets masked and where each value came from, the unknown variables
// warned about, and a configuration the host would refuse refused with every problem.

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));

async function eql(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, 'config', 'print', ...args], { env: { ...clean, NO_COLOR: '1', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('eql config print', () => {
  it('prints every setting with its value, secrets masked, and says which variables it does not know', { timeout: 60_000 }, async () => {
    const printed = await eql({ EQL_PORT: '9000', EQL_API_KEY: 'eql_cli_secret_0123456789', EQL_DATABASE_URL: 'postgres://eql:hunter2@db:5432/eql', EQL_PROT: '1' });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^# HTTP\n/);
    expect(printed.stdout).toMatch(/^EQL_PORT +9000$/m);
    expect(printed.stdout).toMatch(/^EQL_HOST +127\.0\.0\.1 +\(default\)$/m);
    expect(printed.stdout).toMatch(/^EQL_API_KEY +\*\*\*$/m);
    expect(printed.stdout).toMatch(/^EQL_DATABASE_URL +postgres:\/\/eql:\*\*\*@db:5432\/eql$/m);
    expect(printed.stdout + printed.stderr).not.toMatch(/eql_cli_secret_0123456789|hunter2/);
    expect(printed.stderr).toBe('warning: unknown variable EQL_PROT (did you mean EQL_PORT?): the host ignores it\n');
    const json = JSON.parse((await eql({ EQL_LOG_LEVEL: 'debug' }, '--json')).stdout) as { settings: Array<{ name: string; value: string; source: string }>; warnings: string[] };
    expect(json.settings.find((setting) => setting.name === 'EQL_LOG_LEVEL')).toMatchObject({ value: 'debug', source: 'environment' });
    expect(json.warnings).toEqual([]);
  });

  it('refuses what the host would refuse: exit 2, every problem on one line, each naming its variable', { timeout: 60_000 }, async () => {
    const refused = await eql({ EQL_FEED: 'bogus', EQL_LOG_LEVEL: 'loud', EQL_NATS_USER: 'eql' });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^eql: EQL_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"; EQL_FEED must be replay, bus or ccxt:<exchange id> .*; EQL_NATS_USER is set but EQL_NATS_PASSWORD is not/);
  });
});

describe('eql serve on a terminal', () => {
  it('logs warnings and errors only when a person reads its terminal, the configured level otherwise', async () => {
    const { terminalLogLevel } = await import('../src/commands/serve.js');
    expect(terminalLogLevel('info', true, undefined)).toBe('warn');
    expect(terminalLogLevel('info', false, undefined)).toBe('info');
    expect(terminalLogLevel('info', true, 'info')).toBe('info');
    expect(terminalLogLevel('debug', true, 'debug')).toBe('debug');
  });
});
