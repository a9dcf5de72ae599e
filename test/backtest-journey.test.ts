import { execFile } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PushSource } from '@eql/core';
import { recordCommand } from '../packages/cli/src/commands/record.js';
import type { CliIo } from '../packages/cli/src/io.js';
import { startBinanceMock, type BinanceMock, type KlineRow } from '../packages/venue-ccxt/test/support/binance-mock.js';
import { buildServer, type Host } from '../packages/server/src/build-server.js';
import { createApiKey } from '../packages/server/src/auth/api-keys.js';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from '../packages/server/test/support/chromium.js';

// Issue 49's journey, end to end: a trader records a month of BTC minutes from a (replayed) venue with
// `eql record`, previews an RSI mean-reversion rule with a stop and a take profit with `eql preview` in a
// terminal (a real child process), then in the console of a host serving that recording (Chromium), and
// sees the same trades, PnL and drawdown in both.

const run = promisify(execFile);
const EQL = new URL('../packages/cli/bin/eql.js', import.meta.url).pathname;
const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const DAYS = 30;

/** A month of minutes: swings of a few percent a day, with noise from a fixed seed (so a fixed result). */
function month(): KlineRow[] {
  let seed = 20260301;
  const noise = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  const cents = (value: number) => Math.round(value * 100) / 100;
  let close = 60_000;
  return Array.from({ length: DAYS * 1440 }, (_, i) => {
    const open = close;
    const target = 60_000 * (1 + 0.03 * Math.sin(i / 700) + 0.015 * Math.sin(i / 97));
    close = cents(open + 0.02 * (target - open) + 60 * noise());
    return { start: T0 + i * MINUTE, open, high: cents(Math.max(open, close) + 8), low: cents(Math.min(open, close) - 8), close, volume: 1 + (i % 7) };
  });
}

const RULE = {
  title: 'BTC RSI mean reversion',
  query: {
    conditions: { AND: [{ source: 'ta', method: 'rsi', args: { symbol: 'BTC', timeframe: '5m', period: 14 }, operator: 'crosses_below', value: 30 }] },
    actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC-PERP', side: 'buy', size: 0.05, takeProfit: { percent: 1 }, stopLoss: { percent: 1 } } }],
    repeat: { cooldown: '1h', maxTriggers: 100 },
    expiresIn: '30d',
  },
};

let dir: string;
let mock: BinanceMock;
let host: Host | undefined;
let browser: Browser | undefined;

await describeWithChromium('a month recorded from a venue, backtested in the terminal and in the console', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eql-journey-'));
    mock = await startBinanceMock();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await mock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records, previews with trades, PnL and drawdown, and shows the same in the console', { timeout: 240_000 }, async () => {
    // 1. eql record: a month of BTC minutes from the venue, paged.
    mock.setKlines('linear', 'BTCUSDT', '1m', month());
    const recording = join(dir, 'btc-march.jsonl');
    let said = '';
    const io: CliIo = {
      stdout: (text) => (said += text),
      stderr: (text) => (said += text),
      readStdin: () => Promise.resolve(''),
      readFile: (path) => readFile(path, 'utf8'),
      writeFile: (path, text) => writeFile(path, text),
      appendFile: (path, text) => appendFile(path, text),
      color: false,
    };
    const flags = { venue: 'binanceusdm', symbols: 'BTC', timeframe: '1m', from: new Date(T0).toISOString(), to: new Date(T0 + DAYS * 86_400_000).toISOString(), output: recording };
    expect(await recordCommand(flags, io, { config: mock.config, now: () => T0 + (DAYS + 1) * 86_400_000 })).toBe(0);
    expect(said).toContain(`wrote ${DAYS * 1440} 1m candles of BTC from binanceusdm`);

    // 2. eql preview in a terminal: trades, PnL and drawdown.
    const rule = join(dir, 'rule.json');
    await writeFile(rule, JSON.stringify(RULE, null, 2));
    const terminal = await run(process.execPath, [EQL, 'preview', rule, '--data', recording, '--fee', '0.05'], { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 });
    const closed = /(\d+) trades closed \((\d+) won, (\d+) lost, win rate [\d.]+ %\)/.exec(terminal.stdout);
    expect(closed, terminal.stdout.slice(-2000)).not.toBeNull();
    const [, trades, won, lost] = closed as RegExpExecArray;
    expect(Number(won)).toBeGreaterThan(0);
    expect(Number(lost)).toBeGreaterThan(0);
    const net = /net ([+-]?\$[\d,.]+) \(/.exec(terminal.stdout)?.[1];
    const drawdown = /max drawdown ([\d.]+) % \(\$[\d,.]+\)/.exec(terminal.stdout)?.[1];
    expect(net).toBeDefined();
    expect(drawdown).toBeDefined();
    expect(terminal.stdout).toMatch(/ take_profit /);
    expect(terminal.stdout).toMatch(/ stop_loss /);

    // 3. The console of a host serving that recording: the same rule, the same account.
    const push = new PushSource();
    host = await buildServer({ config: { dataDir: join(dir, 'data'), secretKey: 'ef'.repeat(32), recordingPath: recording }, logger: false, engine: { sources: [push] } });
    const baseUrl = await host.app.listen({ host: '127.0.0.1', port: 0 });
    const key = await createApiKey(host.context.store, host.context.box, { name: 'trader', plan: 'pro' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${baseUrl}/console/`);
    await page.locator('#api-key').fill(key.key);
    await page.keyboard.press('Enter');
    const wait = { timeout: 60_000 };
    await expect.poll(() => page.locator('#findings').textContent(), wait).toBe('No problems found.');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.insertText(JSON.stringify(RULE, null, 2));
    await expect.poll(() => page.locator('#findings').textContent(), wait).toBe('No problems found.');
    await page.locator('#preview-fee').fill('0.05');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-summary').textContent(), wait).toContain(' On paper: ');
    const stats = page.locator('#preview-paper-summary');
    const value = async (name: string) => (await stats.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]').textContent())?.replace(/\u00a0/g, ' ');
    expect(await value('Trades')).toMatch(new RegExp(`^${Number(trades) + Number(/, (\d+) open/.exec(terminal.stdout)?.[1] ?? 0)}\\b`));
    expect(await value('Win rate')).toMatch(new RegExp(`\\(${won} won, ${lost} lost\\)$`));
    expect(await value('Net PnL')).toMatch(new RegExp(`^${(net as string).replace(/[$+.]/g, '\\$&')} \\(`));
    expect(await value('Max drawdown')).toMatch(new RegExp(`^${drawdown} % \\(`));
    // A month of minutes is drawn with candles that fit (the rule's 5m would be 8,640): every extreme kept.
    const chart = page.locator('#preview-chart');
    expect(await chart.getAttribute('data-timeframe')).toBe('1h');
    expect(await chart.getAttribute('data-panes')).toBe('3');
    expect(String(await chart.getAttribute('data-markers'))).toMatch(/\bsell\b/);
    await page.close();
  });
});
