import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { buildServer } from '@eql/server';
import { SECRET_KEY_HEX } from '../../server/test/support/host.js';
import { describeWithNatsServer, startNatsServer, type TestNatsServer } from '../../server/test/support/nats-server.js';
import { describeWithPostgres, freshSchema } from '../../server/test/support/postgres.js';

// `eql bus publish` and `eql bus status` on a nats-server that asks for a user and password (issue 45,
// finding 3): the settings (or the URL) are used, a refusal exits 1 with the server named and its
// password masked, and a wrong setting is unusable input.

const BIN = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const RECORDING = fileURLToPath(new URL('../../../examples/recording.jsonl', import.meta.url));
const PASSWORD = 'cli-bus-pw-4417';
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

function eql(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('EQL_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...base, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function server(): Promise<TestNatsServer> {
  const nats = await startNatsServer(`authorization { users = [ { user: "eql", password: "${PASSWORD}" } ] }`);
  cleanups.push(() => nats.stop());
  return nats;
}

describeWithNatsServer('eql bus publish on a NATS server with a password', () => {
  it('publishes with EQL_NATS_USER / EQL_NATS_PASSWORD or the URL\'s; without them, or with a wrong one, exits 1 and never prints the password', { timeout: 60_000 }, async () => {
    const nats = await server();
    const publish = (env: Record<string, string>, ...extra: string[]) => eql(['bus', 'publish', RECORDING, '--keep-times', '--speed', 'max', ...extra], env);
    const first = await publish({ EQL_NATS_URL: nats.url, EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: PASSWORD });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('published 21 observations to EQL_MARKET (0 already there, last sequence 21)\n');
    const again = await publish({}, '--nats', `nats://eql:${PASSWORD}@127.0.0.1:${nats.port}`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('(21 already there');

    const none = await publish({ EQL_NATS_URL: nats.url });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(new RegExp(`^eql: cannot connect to the market bus at nats://127\\.0\\.0\\.1:${nats.port}: Authorization Violation \\(the server refused the credentials`));
    const wrong = await publish({ EQL_NATS_URL: `nats://eql:wrong-pw-9911@127.0.0.1:${nats.port}` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`at nats://***@127.0.0.1:${nats.port}: Authorization Violation`);
    expect(wrong.stderr + wrong.stdout).not.toContain('wrong-pw-9911');
  });

  it('says which setting is wrong (exit 2)', { timeout: 60_000 }, async () => {
    const missing = await eql(['bus', 'publish', RECORDING], { EQL_NATS_URL: 'nats://127.0.0.1:4222', EQL_NATS_CREDS: '/nonexistent/eql.creds' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('eql: EQL_NATS_CREDS: cannot read /nonexistent/eql.creds (ENOENT)\n');
    const twice = await eql(['bus', 'publish', RECORDING, '--nats', 'nats://eql:secret-in-url@127.0.0.1:4222'], { EQL_NATS_TOKEN: 'tok' });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('the NATS URL holds credentials and so do EQL_NATS_USER');
    expect(twice.stderr).not.toContain('secret-in-url');
  });
});

await describeWithPostgres('eql bus status on a NATS server with a password', () => {
  describeWithNatsServer('with the server', () => {
    it('reads the stream with the settings\' credentials, and exits 1 without them', { timeout: 60_000 }, async () => {
      const nats = await server();
      const schema = await freshSchema('cli_bus_auth');
      cleanups.push(() => schema.drop());
      const host = await buildServer({
        config: { dataDir: mkdtempSync(join(tmpdir(), 'eql-cli-bus-auth-')), databaseUrl: schema.url, natsUrl: nats.url, natsAuth: { user: 'eql', password: PASSWORD }, feed: 'bus', secretKey: SECRET_KEY_HEX, marketSeed: false, nodeId: 'auth-a', partitions: 2, leaseTtlMs: 900 },
        logger: false,
      });
      cleanups.push(() => host.close());
      const status = await eql(['bus', 'status', '--json'], { EQL_DATABASE_URL: schema.url, EQL_NATS_URL: nats.url, EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: PASSWORD });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ stream: { name: 'EQL_MARKET' }, hosts: [{ nodeId: 'auth-a' }] });
      const refused = await eql(['bus', 'status'], { EQL_DATABASE_URL: schema.url, EQL_NATS_URL: nats.url });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Authorization Violation');
    });
  });
});
