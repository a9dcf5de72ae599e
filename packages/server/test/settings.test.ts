import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, configFromEnv, configurationMarkdown, HOST_SETTINGS, printedSettings, readSettings, settingsWarnings } from '../src/index.js';

// The host's configuration as one table (settings/host-settings.ts), read by one function: every error
// names its variable (all of them at once), a secret is never repeated and may come from a file, unknown
// EQL_* variables are warned about with a did-you-mean, and docs/configuration.md is the table's.

const dir = mkdtempSync(join(tmpdir(), 'eql-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A value each kind refuses. */
function wrongValue(kind: (typeof HOST_SETTINGS)[number]['kind']): string | undefined {
  switch (kind.type) {
    case 'integer':
      return 'twelve';
    case 'number':
      return 'fast';
    case 'flag':
      return 'maybe';
    case 'choice':
      return 'nothing-of-the-kind';
    case 'text':
      return kind.pattern || kind.minLength ? 'a b' : undefined;
    case 'url':
      return 'not a url';
    case 'custom':
      // EQL_MARKET_SEED takes any path (or none): it has no wrong text.
      return 'bogus value!';
    default:
      return undefined;
  }
}

describe('the configuration table', () => {
  it('refuses the values the issue found accepted or crashing, all in one error naming each variable', () => {
    let thrown: unknown;
    try {
      configFromEnv({ EQL_FEED: 'bogus', EQL_API_PLAN: 'Free', EQL_LOG_LEVEL: 'loud', EQL_BODY_LIMIT: 'abc' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).problems).toEqual([
      'EQL_BODY_LIMIT must be a whole number from 1024 to 1073741824, not "abc"',
      'EQL_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
      'EQL_FEED must be replay, bus or ccxt:<exchange id> (such as ccxt:binance), not "bogus"',
      'EQL_API_PLAN must be one of free, pro, not "Free" (did you mean free?)',
    ]);
  });

  it('names the variable in the error of every setting given a wrong value, and never repeats a secret', () => {
    for (const setting of HOST_SETTINGS) {
      // A URL secret is refused without its credentials (its mask), the rest of it may be quoted.
      const wrong = setting.mask ? 'ftp://user:s3cr3t-pw@host/x' : wrongValue(setting.kind);
      if (wrong === undefined || setting.name === 'EQL_MARKET_SEED') continue;
      let message = '';
      try {
        readSettings({ [setting.name]: wrong });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, setting.name).toContain(setting.name);
      if (setting.secret) expect(message, setting.name).not.toContain(setting.mask ? 's3cr3t-pw' : wrong);
    }
  });

  it('reads every value each kind accepts back as given (property: integers within bounds, flags, choices)', () => {
    const integers = HOST_SETTINGS.filter((setting) => setting.kind.type === 'integer');
    fc.assert(
      fc.property(fc.constantFrom(...integers), fc.nat(), (setting, seed) => {
        const kind = setting.kind as { type: 'integer'; min: number; max?: number };
        const max = kind.max ?? kind.min + 1_000_000;
        const value = kind.min + (seed % (max - kind.min + 1));
        expect(readSettings({ [setting.name]: String(value) }).values.get(setting.name)).toBe(value);
        expect(() => readSettings({ [setting.name]: String(kind.min - 1) })).toThrow(setting.name);
        if (kind.max !== undefined) expect(() => readSettings({ [setting.name]: String(max + 1) })).toThrow(setting.name);
      }),
    );
    for (const [text, value] of [['on', true], ['1', true], ['YES', true], ['off', false], ['0', false], ['False', false]] as const) expect(readSettings({ EQL_METRICS: text }).values.get('EQL_METRICS')).toBe(value);
  });

  it('takes a secret from <NAME>_FILE (a trailing newline dropped), refuses both at once, and names an unreadable file', () => {
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, 'eql_from_a_file_0123456789\n');
    const urlFile = join(dir, 'database-url');
    writeFileSync(urlFile, 'postgres://eql:hunter2@db:5432/eql');
    const config = configFromEnv({ EQL_API_KEY_FILE: keyFile, EQL_DATABASE_URL_FILE: urlFile });
    expect(config.seedApiKey).toBe('eql_from_a_file_0123456789');
    expect(config.databaseUrl).toBe('postgres://eql:hunter2@db:5432/eql');
    expect(() => configFromEnv({ EQL_API_KEY: 'eql_direct_0123456789', EQL_API_KEY_FILE: keyFile })).toThrow('EQL_API_KEY and EQL_API_KEY_FILE are both set: give the value one way');
    expect(() => configFromEnv({ EQL_METRICS_TOKEN_FILE: join(dir, 'missing') })).toThrow(`EQL_METRICS_TOKEN_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`);
    // A group's own reader gets the file's content too (the bus password).
    const passwordFile = join(dir, 'nats-password');
    writeFileSync(passwordFile, 'pw-from-file\n');
    expect(configFromEnv({ EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD_FILE: passwordFile }).natsAuth).toMatchObject({ user: 'eql', password: 'pw-from-file' });
    // Not a secret: no file variant (it would be an unknown variable).
    expect(settingsWarnings({ EQL_PORT_FILE: keyFile })).toEqual(['unknown variable EQL_PORT_FILE: the host ignores it']);
  });

  it('warns about unknown EQL_* variables with a did-you-mean, not about the CLI’s and the tools’', () => {
    expect(settingsWarnings({ EQL_PROT: '1', EQL_LOGLEVEL: 'info', EQL_SOMETHING_ELSE_ENTIRELY: 'x', EQL_URL: 'http://h', EQL_TEST_NATS_URL: 'nats://x', EQL_BENCH_STORM_N: '3', HOME: '/root' })).toEqual([
      'unknown variable EQL_LOGLEVEL (did you mean EQL_LOG_LEVEL?): the host ignores it',
      'unknown variable EQL_PROT (did you mean EQL_PORT?): the host ignores it',
      'unknown variable EQL_SOMETHING_ELSE_ENTIRELY: the host ignores it',
    ]);
  });

  it('prints the effective configuration with secrets masked and where each value came from', () => {
    const keyFile = join(dir, 'token');
    writeFileSync(keyFile, 'metrics-token-from-file-0123');
    const printed = printedSettings({ EQL_PORT: '9000', EQL_API_KEY: 'eql_secret_value_0123456789', EQL_DATABASE_URL: 'postgres://eql:hunter2@db:5432/eql', EQL_NATS_URL: 'nats://user:natspw@bus:4222', EQL_METRICS_TOKEN_FILE: keyFile });
    const of = (name: string) => printed.find((setting) => setting.name === name);
    expect(of('EQL_PORT')).toMatchObject({ value: '9000', source: 'environment', secret: false });
    expect(of('EQL_HOST')).toMatchObject({ value: '127.0.0.1', source: 'default' });
    expect(of('EQL_API_KEY')).toMatchObject({ value: '***', source: 'environment', secret: true });
    expect(of('EQL_DATABASE_URL')?.value).toBe('postgres://eql:***@db:5432/eql');
    expect(of('EQL_NATS_URL')?.value).toBe('nats://***@bus:4222');
    expect(of('EQL_METRICS_TOKEN')).toMatchObject({ value: '***', source: 'file' });
    const text = JSON.stringify(printed);
    for (const secret of ['eql_secret_value_0123456789', 'hunter2', 'natspw', 'metrics-token-from-file-0123']) expect(text).not.toContain(secret);
    expect(printed.map((setting) => setting.name)).toEqual(HOST_SETTINGS.map((setting) => setting.name));
  });

  it('is what docs/configuration.md says (npm run docs:configuration writes it)', () => {
    expect(readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')).toBe(configurationMarkdown());
  });

  it('puts each setting in the configuration by its path, or reads it with its group; no row is forgotten', () => {
    // Read by their own code: the plans, the demo payee switch, the bus's credentials and the model's settings.
    const readWithGroup = HOST_SETTINGS.filter((setting) => setting.config === undefined).map((setting) => setting.name);
    expect(readWithGroup.filter((name) => !/^EQL_(API_PLAN|PLANS_FILE|X402_DEMO|NATS_(USER|PASSWORD|TOKEN|NKEY_SEED|NKEY_SEED_FILE|CREDS|TLS_CA|TLS_CERT|TLS_KEY)|LLM_[A-Z_]+)$/.test(name))).toEqual([]);
    // A path leads into the configuration: its objects on the way exist by default (pgTimeouts is made when set).
    const defaults = configFromEnv({}) as unknown as Record<string, unknown>;
    for (const setting of HOST_SETTINGS) {
      if (setting.config === undefined) continue;
      const [head, ...rest] = setting.config.split('.');
      if (rest.length > 0 && head !== 'pgTimeouts') expect(typeof defaults[head as string], setting.name).toBe('object');
    }
    // And the value lands there.
    const config = configFromEnv({ EQL_METRICS_PORT: '9464', EQL_PG_LOCK_TIMEOUT_MS: '250', EQL_RETENTION_CHAT: '3d', EQL_X402_REQUESTS_PER_MINUTE: '7', EQL_PORT: '1234' });
    expect(config).toMatchObject({ port: 1234, metrics: { enabled: true, port: 9464 }, pgTimeouts: { lockMs: 250 }, retention: { chat: 3 * 86_400_000 }, x402: { requestsPerMinute: 7, agentSecrets: [] } });
    expect(configFromEnv({}).pgTimeouts).toBeUndefined();
  });

  it('lists every EQL_ variable the host reads', () => {
    // The sources of the host and of what it reads through (the bus's and the model's settings).
    const read = new Set<string>();
    for (const file of ['../src/config.ts', '../src/settings/nats-settings.ts', '../../llm/src/llm-config.ts']) {
      for (const match of readFileSync(new URL(file, import.meta.url), 'utf8').matchAll(/\b(EQL_[A-Z0-9_]+)\b/g)) read.add(match[1] as string);
    }
    // EQL_MARKET is a value (the bus's default stream name), not a variable.
    const known = new Set([...HOST_SETTINGS.flatMap((setting) => [setting.name, `${setting.name}_FILE`]), 'EQL_MARKET']);
    expect([...read].filter((name) => !known.has(name)).sort()).toEqual([]);
  });
});
