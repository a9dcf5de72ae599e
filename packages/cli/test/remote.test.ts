import { execFile } from 'node:child_process';
import { readFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { killChildren, serveChild } from '../../server/test/support/child-host.js';
import { freePort, removeDir } from '../../server/test/support/harness.js';

// `eql remote …` against `eql serve` as a child process (`npx tsc -b` first), over a loopback socket,
// with the key and secret in the environment. The commands run in this process through `main` (as the
// bin runs them, with their output in memory); one test runs the built bin as a child process too.

const BIN = fileURLToPath(new URL('../bin/eql.js', import.meta.url));
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const API_KEY = 'eql_remote_cli_key_0123456789abcdef';
const HMAC_SECRET = 'remote-cli-hmac-secret-0123456789';

let dir: string;
let url: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `eql remote ARGS` with EQL_URL and EQL_API_KEY set (and `env` on top), in this process. */
async function eql(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (text: string) => (stdout += text), stderr: (text: string) => (stderr += text), readStdin: () => Promise.resolve(''), readFile: (path: string) => readFile(path, 'utf8'), color: false };
  const code = await main(['remote', ...args], io, { EQL_URL: url, EQL_API_KEY: API_KEY, ...env });
  return { code, stdout, stderr };
}

/** The built bin as a child process. */
function eqlBin(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('EQL_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'remote', ...args], { env: { ...base, NO_COLOR: '1', EQL_URL: url, EQL_API_KEY: API_KEY, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const createdId = (run: Run): string => {
  const match = /^created ([0-9a-f-]{36}) /m.exec(run.stdout);
  if (!match) throw new Error(`no query created:\n${run.stdout}\n${run.stderr}`);
  return match[1]!;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eql-remote-'));
  const recording = join(dir, 'btc.jsonl');
  const lines = Array.from({ length: 60 }, (_, minute) => JSON.stringify({ at: new Date(Date.UTC(2026, 0, 5, 0, minute)).toISOString(), source: 'price', symbol: 'BTC', price: 100 }));
  await writeFile(recording, `${lines.join('\n')}\n`);
  await writeFile(join(dir, 'now.eql'), 'title "BTC is priced"\nwhen price of BTC > 1\nthen notify "BTC is at its price" as tell\nexpires in 1h\n');
  const port = await freePort();
  await serveChild({ EQL_PORT: String(port), EQL_HOST: '127.0.0.1', EQL_DATA_DIR: join(dir, 'data'), EQL_API_KEY: API_KEY, EQL_HMAC_SECRET: HMAC_SECRET, EQL_RECORDING: recording, EQL_LOG_LEVEL: 'warn' });
  url = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  killChildren();
  await removeDir(dir);
});

describe('eql remote', { timeout: 60_000 }, () => {
  it('runs as the built bin: ping answers, an unreachable host is exit 3', async () => {
    expect(await eqlBin(['ping'])).toMatchObject({ code: 0, stdout: 'the host answers\n' });
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await eqlBin(['ping', '--host', closed]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`cannot reach ${closed}: ECONNREFUSED`);
  });

  it('pings; validates on the host (exit 0 valid, 1 invalid with the reasons)', async () => {
    expect(await eql(['ping'])).toMatchObject({ code: 0, stdout: 'the host answers\n' });
    const valid = await eql(['validate', join(EXAMPLES, 'price-alert.eql')]);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain('is valid');
    const invalid = await eql(['validate', join(EXAMPLES, 'bad.eql')]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain('[username-at]');
  });

  it('creates from the text form, watches its notification, polls it, lists it and shows its execution', async () => {
    const created = await eql(['create', join(dir, 'now.eql')]);
    expect(created.code, created.stderr).toBe(0);
    const queryId = createdId(created);
    const watched = await eql(['watch', queryId, '--count', '1']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(new RegExp(`BTC is priced: BTC is at its price {2}\\(query ${queryId}, id \\d+\\)`));
    const polled = await eql(['poll', queryId]);
    expect(polled.stdout).toContain(queryId);
    const listed = JSON.parse((await eql(['list', '--json'])).stdout) as { queries: Array<{ queryId?: string; id?: string }> };
    expect(listed.queries.some((query) => (query.queryId ?? query.id) === queryId)).toBe(true);
    const executions = await eql(['executions', '--query', queryId]);
    expect(executions.stdout).toMatch(/tell {2}notify {2}succeeded/);

    // Resumed after the last id: the next notification only, as a JSON line.
    const lastId = /id (\d+)\)/.exec(watched.stdout)![1]!;
    const second = createdId(await eql(['create', join(dir, 'now.eql')]));
    const resumed = await eql(['watch', '--from', lastId, '--count', '1', '--json']);
    const events = resumed.stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; id?: string; data: { data?: { queryId: string } } });
    const notifications = events.filter((event) => event.event === 'notification:new');
    expect(notifications).toHaveLength(1);
    expect(notifications[0]!.data.data?.queryId).toBe(second);
    expect(Number(notifications[0]!.id)).toBeGreaterThan(Number(lastId));
  });

  it('creates a trading query only with the HMAC secret (signed), after the preflight; cancels and deletes it', async () => {
    const unsigned = await eql(['create', join(EXAMPLES, 'paper-trade.eql')]);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toContain('set EQL_HMAC_SECRET');
    const signed = await eql(['create', join(EXAMPLES, 'paper-trade.eql')], { EQL_HMAC_SECRET: HMAC_SECRET });
    expect(signed.code, signed.stderr).toBe(0);
    const queryId = createdId(signed);
    expect(await eql(['cancel', queryId], { EQL_HMAC_SECRET: HMAC_SECRET })).toMatchObject({ code: 0, stdout: `cancelled ${queryId}\n` });
    expect(await eql(['delete', queryId], { EQL_HMAC_SECRET: HMAC_SECRET })).toMatchObject({ code: 0, stdout: `deleted ${queryId}\n` });
    const wrong = await eql(['create', join(EXAMPLES, 'paper-trade.json'), '--json'], { EQL_HMAC_SECRET: 'not-the-secret-0123456789abcdef' });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ success: false, status: 401, error: { code: 'signature_invalid_signature', details: { parts: { path: '/queries/validate' } } } });
  });

  it("says what the host refused (exit 1), what is missing (exit 2) and when the host cannot be reached (exit 3)", async () => {
    const missing = await eql(['get', '00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('refused 404');
    const noKey = await eql(['ping'], { EQL_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('EQL_API_KEY');
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await eql(['ping', '--host', closed]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).toContain(`cannot reach ${closed}: ECONNREFUSED`);
  });

  it('escapes control characters the host sends (a title that clears the screen and retitles the window) in human output; --json keeps them exact', async () => {
    const title = '\x1b[2J\x1b]0;pwned\x07 BTC \u202eevil\x9b31m';
    const message = 'line one\nfake line\r\x1b[1A';
    const request = { title, query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'tell', type: 'notify', params: { message } }], expiresIn: '1h' } };
    await writeFile(join(dir, 'hostile.json'), JSON.stringify(request));
    const queryId = createdId(await eql(['create', join(dir, 'hostile.json')]));
    const shownTitle = '\\u001b[2J\\u001b]0;pwned\\u0007 BTC \\u202eevil\\u009b31m';
    // eslint-disable-next-line no-control-regex -- control characters are what the test looks for
    const unsafe = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

    const listed = await eql(['list']);
    expect(listed.code, listed.stderr).toBe(0);
    const line = listed.stdout.split('\n').find((text) => text.startsWith(queryId));
    expect(line).toMatch(/ {2}(active|triggered) {2}/);
    expect(line?.endsWith(`  ${shownTitle}`)).toBe(true);
    expect(listed.stdout).not.toMatch(unsafe);
    const exact = JSON.parse((await eql(['list', '--json'])).stdout) as { queries: Array<{ queryId?: string; id?: string; title?: string }> };
    expect(exact.queries.find((query) => (query.queryId ?? query.id) === queryId)?.title).toBe(title);

    // The notification's line: a newline in it cannot start a line of its own either.
    const watched = await eql(['watch', queryId, '--count', '1']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain(`${shownTitle}: line one\\nfake line\\r\\u001b[1A  (query ${queryId}`);
    expect(watched.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(watched.stdout + watched.stderr).not.toMatch(unsafe);
    const events = (await eql(['watch', queryId, '--count', '1', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { event: string; data: { title?: string; body?: string } });
    expect(events.find((event) => event.event === 'notification:new')?.data).toMatchObject({ title, body: message });
  });
});
