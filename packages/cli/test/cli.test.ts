import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Engine, EpochVirtualScheduler, parseRecording, type QueryRequest, RecordingHistory, ReplaySource } from '@eql/core';
import { main, type CliIo } from '../src/index.js';
import { wantsColor } from '../src/io.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/eql/', import.meta.url));
const bin = fileURLToPath(new URL('../bin/eql.js', import.meta.url));

const validRequest = {
  title: 'BTC above 100k',
  query: {
    conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 }] },
    actions: [{ stepId: 'n', type: 'notify', params: { message: 'BTC > 100k' } }],
    expiresIn: '24h',
  },
};

/** Runs `eql` in-process against in-memory files and standard input. */
async function run(argv: string[], files: Record<string, string> = {}, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(stdin),
    readFile: (path) => {
      const content = files[path];
      if (content === undefined) return Promise.reject(Object.assign(new Error('missing'), { code: 'ENOENT' }));
      return Promise.resolve(content);
    },
    color: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('eql --help', () => {
  it('a remote command shows the options of eql remote it reads (--host, --api-key); validate shows examples', async () => {
    const list = await run(['remote', 'list', '--help']);
    expect(list.stdout).toContain('--host <url>');
    expect(list.stdout).toContain('--api-key <key>');
    const validateHelp = await run(['validate', '--help']);
    expect(validateHelp.stdout).toContain('Examples:');
    expect(validateHelp.stdout).toContain('--strict');
  });
});

describe('eql validate', () => {
  it('--max-warnings N and --strict fail a valid file with more warnings than N (exit 1), and say so on standard error', async () => {
    const { readFileSync } = await import('node:fs');
    const warned = readFileSync(`${fixtures}rule-always-true/input.json`, 'utf8');
    const files = { 'w.json': warned, 'ok.json': JSON.stringify(validRequest) };
    expect((await run(['validate', 'w.json'], files)).code).toBe(0);
    expect((await run(['validate', 'w.json', '--max-warnings', '1'], files)).code).toBe(0);
    const strict = await run(['validate', 'w.json', '--strict', '--json'], files);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toBe('eql: 1 warning, more than --max-warnings 0\n');
    expect(JSON.parse(strict.stdout)).toMatchObject({ valid: true });
    expect((await run(['validate', 'ok.json', '--strict'], files)).code).toBe(0);
    // Several files: the warnings of all count.
    const several = await run(['validate', 'ok.json', 'w.json', '--max-warnings', '0'], files);
    expect(several.code).toBe(1);
    expect(several.stdout).toContain('2 files: 2 valid, 0 invalid');
    expect(several.stderr).toContain('1 warning, more than --max-warnings 0');
    const bad = await run(['validate', 'w.json', '--max-warnings', 'some'], files);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-warnings must be a whole number');
  });

  it('prints a spec 2.4 result with diagnostics for a valid request and exits 0', async () => {
    const { code, stdout } = await run(['validate', 'q.json', '--json'], { 'q.json': JSON.stringify(validRequest) });
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ valid: true, errors: [], warnings: [], estimatedCost: { credits: 5, price: '$0.045' }, diagnostics: [] });
    expect(Object.keys(result)).toEqual(['valid', 'errors', 'warnings', 'simulationLlmCallsEstimate', 'estimatedCost', 'diagnostics']);
  });

  it('exits 1 and names the problem for an invalid request', async () => {
    const bad = structuredClone(validRequest) as { query: { conditions: { AND: Array<Record<string, unknown>> } } };
    bad.query.conditions.AND[0] = { source: 'llm', method: 'athena_condition', args: { query: 'Is sentiment bullish?', period: '30m' } };
    const { code, stdout } = await run(['validate', 'q.json'], { 'q.json': JSON.stringify(bad) });
    expect(code).toBe(1);
    expect(stdout).toContain('is invalid: 1 error');
    expect(stdout).toContain('query.conditions.AND[0].args.period: an llm condition period must be at least 1h (got 30m) [llm-period-too-short]');
  });

  it('payment mode leaves out estimatedCost and refuses orders', async () => {
    const ok = await run(['validate', '-', '--json', '--mode', 'payment'], {}, JSON.stringify(validRequest));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).not.toHaveProperty('estimatedCost');
    const trade = structuredClone(validRequest) as { query: { actions: unknown[] } };
    trade.query.actions = [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 100 } }];
    const refused = await run(['validate', '-', '--mode', 'payment'], {}, JSON.stringify(trade));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('[trade-in-payment-mode]');
  });

  it('reads standard input for -', async () => {
    const { code, stdout } = await run(['validate', '-'], {}, JSON.stringify(validRequest));
    expect(code).toBe(0);
    expect(stdout).toContain('<stdin> is valid (api-key mode)');
  });

  it.each([
    ['a missing file', ['validate', 'missing.json'], {}, '', 'cannot read missing.json: no such file'],
    ['an empty file', ['validate', 'e.json'], { 'e.json': '  \n' }, '', 'e.json is empty'],
    ['broken JSON with its line and column', ['validate', 'b.json'], { 'b.json': '{\n  "query": {,}\n}' }, '', 'b.json is not valid JSON: expected a value at line 2, column 13'],
    ['broken JSON on standard input', ['validate', '-'], {}, '{"query": ', '<stdin> is not valid JSON'],
  ])('exits 2 with a message for %s', async (_label, argv, files, stdin, message) => {
    const { code, stdout, stderr } = await run(argv, files, stdin);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  it('reads input that is not JSON as the text form: a syntax error is invalid (exit 1), not unusable', async () => {
    const { code, stdout, stderr } = await run(['validate', '-'], {}, 'when price > 100 then notify');
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toContain('<stdin> is invalid: 1 syntax error');
    expect(stdout).toContain("1:12 expected 'of' after 'price', found '>'");
  });

  it('exits 2 on a bad --mode', async () => {
    const { code, stderr } = await run(['validate', 'q.json', '--mode', 'free']);
    expect(code).toBe(2);
    expect(stderr).toContain("argument 'free' is invalid");
  });

  it('validates non-object JSON as invalid, not unusable', async () => {
    const { code, stdout } = await run(['validate', '-', '--json'], {}, '[1, 2]');
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ valid: false, diagnostics: [{ code: 'not-an-object', path: '' }] });
  });
});

describe('eql estimate', () => {
  it('prints the estimate and cost as JSON', async () => {
    const request = structuredClone(validRequest) as { query: { conditions: { AND: unknown[] } } };
    request.query.conditions.AND.push({ source: 'llm', method: 'athena_condition', args: { query: 'Is sentiment bullish?', period: '1h', speed: 'expert' } });
    const { code, stdout } = await run(['estimate', 'q.json', '--json'], { 'q.json': JSON.stringify(request) });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      simulationLlmCallsEstimate: {
        conditionCallsUpperBound: 24,
        actionCallsUpperBound: 0,
        conditionCallsBySpeed: { fast: 0, expert: 24, adaptive: 0 },
        actionCallsBySpeed: { fast: 0, expert: 0, adaptive: 0 },
      },
      estimatedCost: { credits: 5 + 18 * 24, price: '$3.933' },
      breakdown: [
        { part: 'base', pointer: '', what: 'every query', calls: 0, credits: 5 },
        { part: 'condition', pointer: '/query/conditions/AND/1', what: '"Is sentiment bullish?" every 1h', speed: 'expert', calls: 24, credits: 18 * 24 },
      ],
    });
  });

  it('with --mode payment says what an agent pays in USDC (1 credit = 0.009 USDC)', async () => {
    const request = structuredClone(validRequest) as { query: { conditions: { AND: unknown[] } } };
    request.query.conditions.AND.push({ source: 'llm', method: 'athena_condition', args: { query: 'Is sentiment bullish?', period: '1h' } });
    const json = JSON.parse((await run(['estimate', 'q.json', '--json', '--mode', 'payment'], { 'q.json': JSON.stringify(request) })).stdout) as { usdc: unknown; estimatedCost: { credits: number } };
    expect(json.estimatedCost.credits).toBe(125);
    expect(json.usdc).toEqual({ amount: '1.125', atomicUnits: '1125000' });
    const text = (await run(['estimate', 'q.json', '--mode', 'payment'], { 'q.json': JSON.stringify(request) })).stdout;
    expect(text).toContain('/query/conditions/AND/1  "Is sentiment bullish?" every 1h (fast)  24 calls   120 credits');
    expect(text).toContain('an agent pays 1.125 USDC (1125000 atomic units) to create it (x402)');
  });

  it('prints a readable estimate', async () => {
    const { code, stdout } = await run(['estimate', 'q.json'], { 'q.json': JSON.stringify(validRequest) });
    expect(code).toBe(0);
    expect(stdout).toBe('q.json\n  estimated cost: 5 credits ($0.045)\n  LLM calls, upper bounds: conditions 0; actions 0\n  breakdown:\n    base  every query       5 credits\n');
  });

  it('exits 1 with the findings for an invalid query', async () => {
    const { code, stdout } = await run(['estimate', 'q.json'], { 'q.json': '{"query": {}}' });
    expect(code).toBe(1);
    expect(stdout).toContain('missing required property "conditions"');
  });
});

describe('eql validate against what a host serves', () => {
  const ema = JSON.stringify({ query: { conditions: { AND: [{ source: 'ta', method: 'ema', args: { symbol: 'DOGE', timeframe: '4h', period: 50 }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '7d' } });

  it('--served lists the symbols, --no-history refuses look-backs longer than the query lives, --data reads them from a recording', async () => {
    const served = await run(['validate', 'q.json', '--served', 'BTC,ETH', '--json'], { 'q.json': ema });
    expect(served.code).toBe(1);
    expect((JSON.parse(served.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['unserved-symbol']);
    const cold = await run(['validate', 'q.json', '--no-history'], { 'q.json': ema });
    expect(cold.code).toBe(1);
    expect(cold.stdout).toContain('ema on 4h candles needs 200h of prices before its value is defined, longer than the query lives (7d), and this host has no history to start from [lookback-exceeds-lifetime]');
    const recording = '{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"SOL/USDT","price":100}\n';
    const byData = await run(['validate', 'q.json', '--data', 'r.jsonl'], { 'q.json': ema, 'r.jsonl': recording });
    expect(byData.stdout).toContain('no feed of this host serves prices of DOGE; served: SOL');
    expect((await run(['validate', 'q.json'], { 'q.json': ema })).code).toBe(0);
  });
});

describe('eql preview', () => {
  const recording = `${fixtures}../recordings/btc-1d.jsonl`;
  const crossing = JSON.stringify({
    title: 'BTC breaks 105k',
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_above', value: 105000 }] },
      actions: [{ stepId: 'alert', type: 'notify', params: { message: 'BTC crossed 105k' } }],
      expiresIn: '7d',
    },
  });
  const realFiles = async (path: string) => (path === 'q.json' ? crossing : readFile(path, 'utf8'));

  async function runWithRealFiles(argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readStdin: () => Promise.resolve(''), readFile: realFiles, color: false });
    return { code, stdout, stderr };
  }

  it('shows the progress of a long replay on standard error when it is a terminal', async () => {
    let stderr = '';
    const io = { stdout: () => undefined, stderr: (t: string) => (stderr += t), readStdin: () => Promise.resolve(''), readFile: realFiles, color: false, progress: true };
    expect(await main(['preview', 'q.json'], io)).toBe(0);
    expect(stderr).toMatch(/replaying 13166 observations: 5%\r/);
    expect(stderr).toContain('replaying 13166 observations: done\n');
  });

  it('without --data replays the sample recording the host replays, and says so', async () => {
    const { code, stdout, stderr } = await runWithRealFiles(['preview', 'q.json']);
    expect(code).toBe(0);
    expect(stderr).toContain('no --data: replaying the sample recording');
    expect(stdout).toContain('q.json replayed on the sample recording from 2026-01-05T00:00:00.000Z');
    const json = await runWithRealFiles(['preview', 'q.json', '--json']);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ from: '2026-01-05T00:00:00.000Z' });
  });

  it('prints when the query fires, its timeline and its dry-run actions', async () => {
    const { code, stdout } = await runWithRealFiles(['preview', 'q.json', '--data', recording]);
    expect(code).toBe(0);
    expect(stdout).toContain('✓ fires at 2026-01-06T16:02:00.000Z');
    expect(stdout).toContain('/AND/0 price.current = 105120.63 (threshold 105000) holds');
    expect(stdout).toContain('alert (notify) succeeded');
    expect(stdout).toContain('status at the end: triggered');
  });

  it('prints the preview result as JSON', async () => {
    const { code, stdout } = await runWithRealFiles(['preview', 'q.json', '--data', recording, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ triggered: true, trigger: { at: '2026-01-06T16:02:00.000Z', triggerIndex: 1 }, status: 'triggered' });
  });

  it('honours --from and --to', async () => {
    const { stdout } = await runWithRealFiles(['preview', 'q.json', '--data', recording, '--to', '2026-01-06T12:00:00Z', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ triggered: false, to: '2026-01-06T12:00:00.000Z' });
  });

  it('trades order steps on paper: the account with --fee, --slippage and --deposit, its trades and statistics, in text and JSON', async () => {
    const start = Date.parse('2026-03-02T00:00:00Z');
    const prices = [100, 99, 95, 97, 103, 105, 95.5, 92, 90];
    const files = {
      'dip.eql': 'when price of BTC crosses below 96\nthen\n  market buy 1 BTC on binance (takeProfit 10%, stopLoss 5%) as buy\nexpires in 7d\nrepeat after 1m\n',
      'r.jsonl': prices.map((price, i) => JSON.stringify({ at: new Date(start + i * 3_600_000).toISOString(), source: 'price', symbol: 'BTC', price })).join('\n'),
    };
    const text = await run(['preview', 'dip.eql', '--data', 'r.jsonl', '--fee', '0.1'], files);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('paper trading (every venue simulated on paper: deposit $10,000.00, fee 0.10 %, slippage 0.00 %):');
    expect(text.stdout).toContain('2 trades closed (1 won, 1 lost, win rate 50.00 %); net +$4.11 (+0.04 %), fees $0.39, equity $10,004.11');
    expect(text.stdout).toContain('2026-03-02T06:00:00.000Z  long BTC 1 @ 95.5000 → 2026-03-02T08:00:00.000Z @ 90 stop_loss  -$5.69 (-5.95 %)');
    const json = await run(['preview', 'dip.eql', '--data', 'r.jsonl', '--fee', '0.1', '--slippage', '0', '--deposit', '5000', '--json'], files);
    const result = JSON.parse(json.stdout) as { paper: { depositUsd: number; feeRate: number; summary: { trades: number; netPnlUsd: number }; trades: unknown[]; equity: unknown[] } };
    expect(result.paper).toMatchObject({ depositUsd: 5000, feeRate: 0.001, summary: { trades: 2 } });
    expect(result.paper.summary.netPnlUsd).toBeCloseTo(4.1145, 9);
    for (const flags of [['--fee', 'abc'], ['--fee', '-1'], ['--slippage', '11'], ['--deposit', '0']]) {
      const bad = await run(['preview', 'dip.eql', '--data', 'r.jsonl', ...flags], files);
      expect(bad.code, flags.join(' ')).toBe(2);
      expect(bad.stderr).toContain(`${flags[0]} must be`);
    }
  });

  it('exits 2 for a missing or malformed recording', async () => {
    expect((await runWithRealFiles(['preview', 'q.json', '--data', '/nonexistent.jsonl'])).code).toBe(2);
    const bad = await run(['preview', 'q.json', '--data', 'r.jsonl'], { 'q.json': crossing, 'r.jsonl': '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC","price":-1}' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('r.jsonl: line 1: price must be a positive number');
  });

  const market = `${fixtures}../recordings/market-3d.jsonl`;
  const rsiBelow = (value: number, expiresIn = '3d') =>
    JSON.stringify({ title: 'SOL oversold', query: { conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'SOL', timeframe: '1h', period: 14 }, operator: '<', value }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'oversold' } }], expiresIn } });

  async function runOn(query: string, argv: string[]) {
    let stdout = '';
    let stderr = '';
    const readFileOrQuery = async (path: string) => (path === 'q.json' ? query : readFile(path, 'utf8'));
    const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readStdin: () => Promise.resolve(''), readFile: readFileOrQuery, color: false });
    return { code, stdout, stderr };
  }

  it('an RSI query previewed --from mid-recording fires where the same query created then in a full replay fires', async () => {
    const from = '2026-01-06T06:30:00Z';
    const { code, stdout } = await runOn(rsiBelow(30), ['preview', 'q.json', '--data', market, '--from', from, '--json']);
    expect(code).toBe(0);
    const previewed = JSON.parse(stdout) as { trigger: { at: string } | null; timeline: Array<{ changes: Array<{ status?: string }> }> };
    // Warm at once: the hours before --from are history, so the first state is ready, not warming up.
    expect(previewed.timeline[0]?.changes[0]?.status).toBe('ready');

    const recording = parseRecording(await readFile(market, 'utf8'));
    const scheduler = new EpochVirtualScheduler(recording.start, recording.end);
    const engine = new Engine({ scheduler, sources: [new ReplaySource(recording.observations, { scheduler, latestOnSubscribe: false })], history: [new RecordingHistory(recording.observations)] });
    const triggers: number[] = [];
    engine.events$.subscribe((event) => event.type === 'trigger' && triggers.push(event.at));
    scheduler.schedule(() => engine.add({ queryId: 'q', request: JSON.parse(rsiBelow(30)) as QueryRequest, createdAt: Date.parse(from) }), Date.parse(from) - recording.start);
    scheduler.flush();
    expect(triggers.length).toBeGreaterThan(0);
    expect(previewed.trigger?.at).toBe(new Date(triggers[0] as number).toISOString());
  });

  it('accepts epoch milliseconds, and exits 2 for a reversed, empty or unreadable range', async () => {
    const epoch = await runOn(rsiBelow(30), ['preview', 'q.json', '--data', market, '--from', String(Date.parse('2026-01-06T06:30:00Z')), '--json']);
    expect(JSON.parse(epoch.stdout)).toMatchObject({ from: '2026-01-06T06:30:00.000Z' });
    const reversed = await runOn(rsiBelow(30), ['preview', 'q.json', '--data', market, '--from', '2026-01-07T00:00:00Z', '--to', '2026-01-06T00:00:00Z']);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toContain('the range is reversed');
    const outside = await runOn(rsiBelow(30), ['preview', 'q.json', '--data', market, '--from', '2027-01-01T00:00:00Z']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('holds nothing of');
    const unreadable = await runOn(rsiBelow(30), ['preview', 'q.json', '--data', market, '--from', 'yesterday']);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('--from must be an ISO 8601 time with a zone');
  });

  it('says why: warming up until when, the threshold, and that expiry ended the run', async () => {
    const { code, stdout } = await runOn(rsiBelow(1, '2d'), ['preview', 'q.json', '--data', market]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\/AND\/0 ta\.rsi \(threshold 1\) does not hold warming up until 2026-01-05T15:00:00\.000Z \(needs 15 closed candles of 1h, has 0\)/);
    expect(stdout).toContain('expired at 2026-01-07T00:00:00.000Z');
  });

  it('refuses a symbol the recording has no prices of (exit 1 with the served list)', async () => {
    const doge = rsiBelow(30).replace('"SOL"', '"DOGE"');
    const { code, stdout } = await runOn(doge, ['preview', 'q.json', '--data', market]);
    expect(code).toBe(1);
    expect(stdout).toContain('no feed of this host serves prices of DOGE; served: BTC, ETH, SOL');
  });

  it('exits 1 with the findings for an invalid query', async () => {
    const { code, stdout } = await run(['preview', 'q.json', '--data', 'r.jsonl'], { 'q.json': '{"query": {"conditions": {"AND": []}, "actions": []}}' });
    expect(code).toBe(1);
    expect(stdout).toContain('is invalid');
  });
});

describe('the eql binary', () => {
  const exec = promisify(execFile);

  it('validates a fixture file from the command line', async () => {
    const { stdout } = await exec(process.execPath, [bin, 'validate', `${fixtures}spec-price-current/input.json`, '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ valid: true });
  });

  it('exits 1 for an invalid query and 2 for unusable input', async () => {
    const input = await readFile(`${fixtures}spec-price-current/input.json`, 'utf8');
    const invalid = input.replace('"value": 100000', '"value": "lots"');
    const child = execFile(process.execPath, [bin, 'validate', '-']);
    child.stdin?.end(invalid);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    await expect(exec(process.execPath, [bin, 'validate', '/nonexistent/q.json'])).rejects.toMatchObject({ code: 2 });
  });

  it('exits 0 without a stack trace when its reader stops reading (eql preview --json | head)', async () => {
    const recording = fileURLToPath(new URL('../../../fixtures/recordings/market-3d.jsonl', import.meta.url));
    const query = fileURLToPath(new URL('../../../examples/sol-oversold.eql', import.meta.url));
    const child = spawn(process.execPath, [bin, 'preview', query, '--data', recording, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // Like head once it has its lines: the pipe closed while the output (100 KB) is still to come.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('colour', () => {
  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ FORCE_COLOR: '' }, false, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: 'false' }, true, false],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
  ])('%o on a terminal %s: colour %s', (env, terminal, expected) => {
    expect(wantsColor(env, terminal)).toBe(expected);
  });
});
