import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRecording, preview, PushSource, type PreviewResult, type QueryRequest } from '@eql/core';
import { formatPercent, formatUsd } from '../../console/src/numbers.js';
import { buildServer, type Host } from '../src/build-server.js';
import { createApiKey, type CreatedKey } from '../src/auth/api-keys.js';
import { CHROMIUM, CHROMIUM_ARGS, describeWithChromium } from './support/chromium.js';

// The web console in a real browser (Debian's Chromium driven by playwright-core) against a real host on
// a real socket: sign in, a typo and its diagnostic from the language server in the page's worker, the
// quick fix, validate with the estimate, create, a notification arriving live, cancel. With
// EQL_CONSOLE_SCREENSHOTS=DIR (npm run screenshots) it saves a screenshot of each main view there.

const SCREENSHOTS = process.env.EQL_CONSOLE_SCREENSHOTS;
const T0 = Date.now();
/** How long a poll waits for the page to show what it waits for: a bound for a loaded machine, not a budget. */
const WAIT = { timeout: 30_000 };

let host: Host;
let push: PushSource;
let key: CreatedKey;
let baseUrl: string;
let browser: Browser;
let dataDir: string;

/** Saves a screenshot of the page (or of one part of it) when screenshots are asked for. */
async function shot(page: Page, name: string, part?: string): Promise<void> {
  if (SCREENSHOTS === undefined) return;
  const dir = fileURLToPath(new URL(`../../../${SCREENSHOTS}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  if (part === undefined) await page.screenshot({ path });
  else await page.locator(part).screenshot({ path });
}

/** Replaces the editor's text the way a person pastes it: focus, select all, insert. */
async function typeQuery(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

/** The findings line once the language server has answered for the current text. */
async function findingsSay(page: Page, expected: string | RegExp): Promise<void> {
  await expect.poll(() => page.locator('#findings').textContent(), WAIT).toMatch(expected);
}

/** A new page of that size, signed in with the key (Enter in the key field), the editor ready. */
async function signedIn(width: number, height: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(`${baseUrl}/console/`);
  await page.locator('#api-key').fill(key.key);
  await page.keyboard.press('Enter');
  await findingsSay(page, 'No problems found.');
  return page;
}

const query = (title: string, symbol: string, value: number, method = 'current') =>
  JSON.stringify(
    {
      title,
      query: {
        conditions: { AND: [{ source: 'price', method, args: { symbol }, operator: '>', value }] },
        actions: [{ stepId: 'notify', type: 'notify', params: { message: `${symbol} is above ${value}` } }],
        expiresIn: '1d',
      },
    },
    null,
    2,
  );

await describeWithChromium('the web console in Chromium', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'eql-console-'));
    push = new PushSource();
    host = await buildServer({ config: { dataDir, secretKey: 'cd'.repeat(32) }, logger: false, engine: { sources: [push] } });
    baseUrl = await host.app.listen({ host: '127.0.0.1', port: 0 });
    key = await createApiKey(host.context.store, host.context.box, { name: 'console', plan: 'pro' });
    push.push({ at: T0, source: 'price', symbol: 'BTC', price: 90_000 });
    push.push({ at: T0, source: 'price', symbol: 'ETH', price: 3_000 });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is served with a strict content security policy, its language worker too (no code is evaluated)', async () => {
    const page = await fetch(`${baseUrl}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await page.text();
    const worker = /language-worker-[\w-]+\.js/.exec(await (await fetch(`${baseUrl}/console/${/src="\/console\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1] ?? ''}`)).text())?.[0];
    expect(worker).toBeDefined();
    // HEAD: only the headers are wanted (an unread 800 KB body would hold the connection open).
    const workerAnswer = await fetch(`${baseUrl}/console/assets/${worker ?? ''}`, { method: 'HEAD' });
    expect(workerAnswer.status).toBe(200);
    expect(workerAnswer.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'));
    expect(workerAnswer.headers.get('content-security-policy')).not.toContain('unsafe-eval');
    const redirect = await fetch(`${baseUrl}/console`, { redirect: 'manual' });
    await redirect.body?.cancel();
    expect(redirect.headers.get('location')).toBe('/console/');
  });

  it('signs in, finds a typo, fixes it, validates, previews, creates, shows the notification live, cancels, and keeps drafts', { timeout: 240_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });

    // Sign in: a wrong key is refused with the host's message, the right one opens the console.
    await page.goto(`${baseUrl}/console/`);
    await shot(page, 'sign-in');
    await page.locator('#api-key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#sign-in-status').textContent(), WAIT).toMatch(/refused/);
    await page.locator('#api-key').fill(key.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await findingsSay(page, 'No problems found.');
    // The refused key's 401 is the browser's console message of that request; nothing else may fail.
    errors.splice(0);
    expect(await page.evaluate('sessionStorage.getItem("eql-console-api-key")')).toBe(key.key);
    expect(page.url()).not.toContain(key.key);

    // A typo: the language server in the worker reports it, and its quick fix repairs it.
    await typeQuery(page, query('BTC breakout', 'BTC', 100_000, 'curent'));
    await findingsSay(page, /^1 error/);
    await page.getByRole('button', { name: 'Problems' }).click();
    const panel = page.locator('.cm-panel.cm-panel-lint');
    await expect.poll(() => panel.textContent(), WAIT).toMatch(/curent/);
    const fix = panel.locator('button.cm-diagnosticAction', { hasText: 'Change to "current"' });
    await fix.click();
    await findingsSay(page, 'No problems found.');
    expect(await page.locator('.cm-content').textContent()).toContain('"method": "current"');
    await panel.getByRole('button', { name: 'close' }).click();

    // Validate: the host's verdict and the cost estimate.
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => page.locator('#validation-verdict').textContent(), WAIT).toMatch(/^Valid/);
    expect(Number(await page.locator('#estimate-credits').textContent())).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#estimate-price').textContent(), WAIT).toMatch(/^\$\d/);
    // The LLM calls said for people, not as a JSON blob.
    expect(await page.locator('#estimate-llm-calls').textContent()).toMatch(/^conditions \d+(?: \([a-z]+ \d+.*\))?; actions \d+/);
    await shot(page, 'workbench');
    // Edited after the verdict: it no longer vouches for the text (the next Validate judges the new one).
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' ');
    await expect.poll(() => page.locator('#validation-verdict').textContent(), WAIT).toBe('Edited since the last validation: validate again for the host’s verdict.');
    expect(await page.locator('#estimate').count()).toBe(0);

    // Preview on the host's recording: the chart, its trigger, the states at the trigger.
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-summary').textContent(), WAIT).toMatch(/^Would have fired \d+ times?, first at /);
    expect(await page.locator('#preview-chart canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#preview-triggers li').count(), WAIT).toBeGreaterThan(0);
    await expect.poll(() => page.locator('#preview-cursor').textContent(), WAIT).toMatch(/price\.current \/AND\/0: holds \(value [\d.,]+, threshold 100,000\)/);
    await page.locator('#preview').scrollIntoViewIfNeeded();
    await shot(page, 'preview', '#preview');

    // The same on a recording of one's own: chosen in the page, replayed in the worker, never sent.
    await page.locator('#preview-file').setInputFiles(fileURLToPath(new URL('../../../fixtures/recordings/btc-1d.jsonl', import.meta.url)));
    await expect.poll(() => page.locator('#preview-source').textContent(), WAIT).toMatch(/^On btc-1d\.jsonl/);
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-summary').textContent(), WAIT).toMatch(/^Would have fired 1 time, first at 2026-01-06 00:00:00Z \(recording 2026-01-06 00:00:00Z to 2026-01-06 23:59:00Z\)/);
    await page.getByRole('button', { name: 'Use the host’s recording' }).click();
    await expect.poll(() => page.locator('#preview-source').textContent(), WAIT).toBe('On the host’s recording.');

    // Create: the query is listed as active.
    await page.getByRole('button', { name: 'Create query' }).click();
    await expect.poll(() => page.locator('#editor-status').textContent(), WAIT).toMatch(/^Created query /);
    const btcRow = page.locator('#queries-body tr', { hasText: 'BTC breakout' });
    await expect.poll(() => btcRow.locator('td').nth(1).textContent(), WAIT).toBe('active');

    // A price above the level: the notification appears in the live pane, the query is triggered.
    push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 100_500 });
    await expect.poll(() => page.locator('#notifications-list li').first().textContent(), WAIT).toMatch(/BTC is above 100000/);
    await expect.poll(() => btcRow.locator('td').nth(1).textContent(), WAIT).toBe('triggered');
    await btcRow.getByRole('button', { name: /^Show / }).click();
    await expect.poll(() => page.locator('#executions tbody tr').first().textContent(), WAIT).toMatch(/notify.*succeeded/);

    // A second query, then cancel it from the list.
    await typeQuery(page, query('ETH moonshot', 'ETH', 1_000_000));
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'Create query' }).click();
    const ethRow = page.locator('#queries-body tr', { hasText: 'ETH moonshot' });
    await expect.poll(() => ethRow.locator('td').nth(1).textContent(), WAIT).toBe('active');
    await ethRow.getByRole('button', { name: 'Cancel ETH moonshot' }).click();
    await expect.poll(() => ethRow.locator('td').nth(1).textContent(), WAIT).toBe('cancelled');
    await btcRow.getByRole('button', { name: /^Show / }).click();
    await expect.poll(() => page.locator('#query-detail-title').textContent(), WAIT).toMatch(/BTC breakout/);
    await shot(page, 'queries', '.queries');

    // Switch to the text form and back: the server converts.
    await page.getByRole('button', { name: 'JSON ⇄ text' }).click();
    await expect.poll(() => page.locator('#form-label').textContent(), WAIT).toBe('Text form');
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'JSON ⇄ text' }).click();
    await expect.poll(() => page.locator('#form-label').textContent(), WAIT).toBe('JSON');

    // Drafts: kept on the host without running, opened back into the editor, then activated.
    await typeQuery(page, query('SOL draft', 'SOL', 1_000_000));
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    const draftRow = page.locator('#drafts-body tr', { hasText: 'SOL draft' });
    await expect.poll(() => draftRow.count(), WAIT).toBe(1);
    await typeQuery(page, query('Something else', 'BTC', 1));
    await draftRow.getByRole('button', { name: 'Open SOL draft' }).click();
    await expect.poll(() => page.locator('.cm-content').textContent(), WAIT).toContain('"title": "SOL draft"');
    await draftRow.getByRole('button', { name: 'Activate SOL draft' }).click();
    await expect.poll(() => draftRow.locator('td').nth(2).textContent(), WAIT).toMatch(/^running as /);
    await expect.poll(() => page.locator('#queries-body tr', { hasText: 'SOL draft' }).locator('td').nth(1).textContent(), WAIT).toBe('active');

    expect(errors).toEqual([]);
    await page.close();
  });

  it('asks the language server in the worker for completion, hover and formatting; previews an indicator with its warm-up', async () => {
    const page = await signedIn(1280, 900);

    // Completion: the methods of a price condition, offered inside the empty "method" value (line 8).
    await typeQuery(page, query('Completion', 'BTC', 100_000, ''));
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.type('c');
    const options = page.locator('.cm-tooltip-autocomplete li');
    await expect.poll(() => options.allTextContents(), WAIT).toEqual(expect.arrayContaining([expect.stringContaining('current')]));
    await page.keyboard.press('Escape');

    // Hover: what a property means.
    await typeQuery(page, query('Hover', 'BTC', 100_000));
    await findingsSay(page, 'No problems found.');
    // The mouse over the word "operator" (found with a DOM Range: highlighting may or may not wrap it in a span).
    const at = await page.evaluate<{ x: number; y: number }>(`(() => {
      const line = [...document.querySelectorAll('.cm-line')].find((element) => element.textContent.includes('"operator"'));
      const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const index = node.textContent.indexOf('operator');
        if (index < 0) continue;
        const range = document.createRange();
        range.setStart(node, index);
        range.setEnd(node, index + 'operator'.length);
        const box = range.getBoundingClientRect();
        return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
      }
    })()`);
    await page.mouse.move(at.x, at.y);
    await expect.poll(() => page.locator('.hover').first().textContent(), WAIT).toMatch(/\S/);
    // The server's Markdown as formatted text: no ** or backtick shown, paragraphs as paragraphs.
    const hoverText = (await page.locator('.hover').first().textContent()) ?? '';
    expect(hoverText).not.toMatch(/\*\*|`/);
    expect(await page.locator('.hover p').count()).toBeGreaterThan(0);

    // Format: one line of JSON comes back laid out.
    await typeQuery(page, JSON.stringify(JSON.parse(query('Format', 'BTC', 100_000))));
    await findingsSay(page, 'No problems found.');
    expect(await page.locator('.cm-line').count()).toBe(1);
    await page.getByRole('button', { name: 'Format' }).click();
    await expect.poll(() => page.locator('.cm-line').count(), WAIT).toBeGreaterThan(10);

    // Preview of an indicator: the chart shades its warm-up, and says until when.
    await page.locator('#example').selectOption({ label: 'ETH oversold on RSI' });
    await expect.poll(() => page.locator('.cm-content').textContent(), WAIT).toContain('"method": "rsi"');
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-chart').getAttribute('data-warmup-until'), WAIT).toMatch(/^2026-01-05T/);
    expect(await page.locator('#preview-chart').getAttribute('aria-label')).toMatch(/^1h candles of ETH, \d+ triggers?, warming up until 2026-01-05 /);
    await page.close();
  });

  it('signs trade-flavoured mutations with the HMAC secret, which stays in the page’s memory', async () => {
    const trade = JSON.stringify({
      title: 'Paper buy',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: 'crosses_above', value: 1_000_000 }] },
        actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'BTC', side: 'buy', amountUsd: 100 } }],
        expiresIn: '1d',
      },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${baseUrl}/console/`);

    // Without the secret: the host refuses the unsigned create, and the page says what to do.
    await page.locator('#api-key').fill(key.key);
    await page.keyboard.press('Enter');
    await findingsSay(page, 'No problems found.');
    await typeQuery(page, trade);
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'Create query' }).click();
    await expect.poll(() => page.locator('#editor-status').textContent(), WAIT).toMatch(/must be signed: sign in with your HMAC secret too/);

    // With it: signed in the page; it is nowhere in storage, and a reload forgets it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#api-key').fill(key.key);
    await page.locator('#hmac-secret').fill(key.hmacSecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await findingsSay(page, 'No problems found.');
    await typeQuery(page, trade);
    await findingsSay(page, 'No problems found.');
    await page.getByRole('button', { name: 'Create query' }).click();
    await expect.poll(() => page.locator('#editor-status').textContent(), WAIT).toMatch(/^Created query /);
    const row = page.locator('#queries-body tr', { hasText: 'Paper buy' });
    await expect.poll(() => row.locator('td').nth(1).textContent(), WAIT).toBe('active');
    await row.getByRole('button', { name: 'Cancel Paper buy' }).click();
    await expect.poll(() => row.locator('td').nth(1).textContent(), WAIT).toBe('cancelled');
    const stored = String(await page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage }) + document.cookie'));
    expect(stored).not.toContain(key.hmacSecret);
    await page.reload();
    await findingsSay(page, 'No problems found.');
    expect(await page.locator('.who').textContent()).not.toContain('signing');
    await page.close();
  });

  it('previews a trading rule on paper: candles, the RSI pane with its 30 line, trade markers, equity, statistics and trades, as the host computed them', { timeout: 120_000 }, async () => {
    const page = await signedIn(1280, 1000);
    await page.locator('#example').selectOption({ label: 'BTC RSI mean reversion on paper' });
    await expect.poll(() => page.locator('.cm-content').textContent(), WAIT).toContain('"type": "market_order"');
    await findingsSay(page, 'No problems found.');
    await page.locator('#preview-fee').fill('0.05');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-summary').textContent(), WAIT).toMatch(/ On paper: \d+ trades?, net [+-]\$/);

    // What the host answers for the same query and account: the page must show exactly that.
    const request = JSON.parse(String(await page.evaluate('JSON.stringify(JSON.parse(document.querySelector(".cm-content").innerText))'))) as { query: QueryRequest['query'] };
    const answer = await fetch(`${baseUrl}/v2/auto/queries/preview?fee=0.05`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-api-key': key.key }, body: JSON.stringify({ query: request.query }) });
    const result = (await answer.json()) as PreviewResult;
    expect(answer.status).toBe(200);
    const paper = result.paper as NonNullable<PreviewResult['paper']>;
    expect(paper.feeRate).toBe(0.0005);
    expect(paper.summary.feesUsd).toBeGreaterThan(0);

    const chart = page.locator('#preview-chart');
    expect(await chart.getAttribute('data-symbol')).toBe('BTC');
    expect(await chart.getAttribute('data-timeframe')).toBe('5m');
    expect(Number(await chart.getAttribute('data-candles'))).toBe(result.candles[0]?.candles.length);
    // Candles, the RSI pane, the equity pane.
    expect(await chart.getAttribute('data-panes')).toBe('3');
    expect(await chart.getAttribute('data-indicators')).toBe('BTC rsi 5m crosses_below 30');
    const markers = String(await chart.getAttribute('data-markers')).split(' ');
    expect(markers.filter((kind) => kind === 'trigger')).toHaveLength(result.triggers.length);
    expect(markers.filter((kind) => kind === 'buy' || kind === 'sell')).toHaveLength(paper.fills.length);
    expect(markers.filter((kind) => kind === 'sell').length).toBeGreaterThan(0);
    expect(Number(await chart.getAttribute('data-equity-points'))).toBeGreaterThan(10);
    expect(await chart.getAttribute('aria-label')).toMatch(/^5m candles of BTC, \d+ triggers, \d+ fills on paper, warming up until .*indicators BTC rsi 5m crosses_below 30, equity$/);
    expect(await page.locator('#preview-chart canvas').count()).toBeGreaterThan(0);

    // The statistics and the trades, in numbers for people.
    const stats = page.locator('#preview-paper-summary');
    expect(await stats.locator('dt').allTextContents()).toEqual(['Trades', 'Win rate', 'Net PnL', 'Realized / unrealized', 'Fees', 'Max drawdown', 'Sharpe (daily, annualized)', 'Exposure', 'Final equity']);
    const value = (name: string) => stats.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]').textContent();
    expect(await value('Net PnL')).toBe(`${formatUsd(paper.summary.netPnlUsd, true)} (${formatPercent(paper.summary.returnPercent, true)})`);
    expect(await value('Fees')).toBe(formatUsd(paper.summary.feesUsd));
    expect(await value('Max drawdown')).toBe(`${formatPercent(paper.summary.maxDrawdownPercent)} (${formatUsd(paper.summary.maxDrawdownUsd)})`);
    expect(await page.locator('#preview-trades tbody tr').count()).toBe(paper.trades.length);
    const firstClosed = paper.trades.find((trade) => !trade.open);
    expect(firstClosed).toBeDefined();
    const cells = await page.locator('#preview-trades tbody tr').nth(paper.trades.indexOf(firstClosed as (typeof paper.trades)[number])).locator('td').allTextContents();
    expect(cells[7]).toBe(String(firstClosed?.closedBy).replace('_', ' '));
    expect(cells[8]).toBe(formatUsd(firstClosed?.pnlUsd ?? NaN, true));
    // The fills of a candle are listed under the chart when the cursor is on it (here: the first trigger's).
    await page.getByRole('button', { name: /^Trigger 1 at / }).click();
    await expect.poll(() => page.locator('#preview-cursor .markers').textContent(), WAIT).toMatch(/^trigger 1 at .*buy 0\.05 BTC-PERP @ [\d,.]+ at /);
    // No float noise anywhere in the preview's text.
    expect(await page.locator('#preview').innerText()).not.toMatch(/\d\.\d{7,}/);
    await page.locator('#preview').scrollIntoViewIfNeeded();
    await shot(page, 'preview-paper', '#preview');

    // The same rule on a recording of one's own, in the worker, with the same account: the core's answer.
    await page.locator('#preview-file').setInputFiles(fileURLToPath(new URL('../../../fixtures/recordings/btc-1d.jsonl', import.meta.url)));
    await expect.poll(() => page.locator('#preview-source').textContent(), WAIT).toMatch(/^On btc-1d\.jsonl/);
    await page.getByRole('button', { name: 'Preview' }).click();
    const own = preview({ query: request.query }, parseRecording(readFileSync(fileURLToPath(new URL('../../../fixtures/recordings/btc-1d.jsonl', import.meta.url)), 'utf8')), { paper: { feeRate: 0.0005 } });
    await expect.poll(() => page.locator('#preview-summary').textContent(), WAIT).toContain(`On paper: ${own.paper?.summary.trades} trade`);
    expect(await page.locator('#preview-trades tbody tr').count()).toBe(own.paper?.trades.length);

    // An account out of range is refused in the page, naming the field.
    await page.locator('#preview-fee').fill('12');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('#preview-summary').textContent(), WAIT).toBe('Preview failed: Fee % must be a number from 0 to 10');
    await page.close();
  });

  it('says the host’s verdict beside the editor’s: a symbol the host’s feed does not serve, which the editor cannot know', { timeout: 120_000 }, async () => {
    // A host on its own replay feed (BTC, ETH and SOL of the recording): DOGE is well formed EQL it does not serve.
    const replayDir = mkdtempSync(join(tmpdir(), 'eql-console-replay-'));
    const replay = await buildServer({ config: { dataDir: replayDir, secretKey: 'cd'.repeat(32), marketSeed: false }, logger: false });
    try {
      const replayUrl = await replay.app.listen({ host: '127.0.0.1', port: 0 });
      const replayKey = await createApiKey(replay.context.store, replay.context.box, { name: 'console', plan: 'pro' });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${replayUrl}/console/`);
      await page.locator('#api-key').fill(replayKey.key);
      await page.keyboard.press('Enter');
      await findingsSay(page, 'No problems found.');
      const hostSays = (expected: string | RegExp) => expect.poll(() => page.locator('#host-verdict').textContent(), WAIT).toMatch(expected);
      await hostSays('The host accepts it.');

      await typeQuery(page, query('DOGE alert', 'DOGE', 1));
      await findingsSay(page, 'No problems found.');
      await hostSays(/^The host refuses it: .*DOGE/);
      expect(await page.locator('#host-verdict').getAttribute('data-verdict')).toBe('refuses');

      // The editor's own error comes first: no verdict about a text the editor already refuses.
      await typeQuery(page, query('typo', 'BTC', 1, 'curent'));
      await findingsSay(page, /^1 error/);
      await hostSays(/^$/);

      await typeQuery(page, query('BTC alert', 'BTC', 1));
      await findingsSay(page, 'No problems found.');
      await hostSays('The host accepts it.');

      // The page asks unsigned, a query that trades too (validate takes a signature, never needs one): each
      // signature is taken once, and the user's next Validate or Create of this body would need it.
      const trade = JSON.stringify({ title: 'buy', query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'DOGE' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'buy', type: 'market_order', params: { exchange: 'paper', symbol: 'DOGE', side: 'buy', amountUsd: 100 } }] } });
      await typeQuery(page, trade);
      await findingsSay(page, 'No problems found.');
      await hostSays(/^The host refuses it: .*DOGE/);
      await page.close();
    } finally {
      await replay.close();
      rmSync(replayDir, { recursive: true, force: true });
    }
  });

  it('is usable at 390 px wide, and every control has a name', async () => {
    const page = await signedIn(390, 844);
    await shot(page, 'narrow');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const unnamed = await page.evaluate(`[...document.querySelectorAll('button, select, input, [role=textbox], [contenteditable=true]')]
      .filter((element) => !(element.getAttribute('aria-label') || element.labels?.length || element.textContent?.trim() || element.getAttribute('title')))
      .map((element) => element.outerHTML.slice(0, 80))`);
    expect(unnamed).toEqual([]);
    await page.close();
  });
});
