// Preview on the host's recording, or on one the user chooses (run in the language worker): when the query
// would have fired and, for a query that trades, what it would have made on paper. Drawn with TradingView's
// lightweight-charts: candles with the thresholds, the warm-up, trigger and trade markers; a pane per `ta`
// condition with its threshold; the paper equity. The condition states at the instant under the cursor
// (or the keyboard's) are listed below, with the paper account's statistics and its trades.
import type { PaperReport, PreviewResult, TimelineChange } from '@eql/core';
import { AreaSeries, CandlestickSeries, createChart, createSeriesMarkers, type IChartApi, LineSeries, type SeriesMarkerBar, type Time, type UTCTimestamp } from 'lightweight-charts';
import { errorText, formatTime, h, replaceChildren } from '../dom.js';
import type { LanguageClient } from '../lsp/language-client.js';
import type { Session } from '../session.js';
import { formatAmount, formatNumber, formatPercent, formatUsd, pricePrecision } from '../numbers.js';
import { chartData, type ChartData, chartSymbols, type MarkerKind } from './preview-chart-data.js';

export interface PreviewView {
  element: HTMLElement;
  run(request: unknown): Promise<void>;
}

const seconds = (iso: string): UTCTimestamp => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;
const time = (value: number): UTCTimestamp => value as UTCTimestamp;

/** The conditions' states at `time`: the timeline's changes up to it, the latest per condition. */
export function statesAt(result: PreviewResult, time: number): TimelineChange[] {
  const states = new Map<string, TimelineChange>();
  for (const entry of result.timeline) {
    if (Date.parse(entry.at) > time * 1000) break;
    for (const change of entry.changes) states.set(change.path, change);
  }
  return [...states.values()];
}

/** Most indicator panes drawn (one a `ta` condition); the others are named under the chart. */
const MAX_INDICATOR_PANES = 3;

const MARKER_STYLE: Record<MarkerKind, Pick<SeriesMarkerBar<Time>, 'position' | 'color' | 'shape'>> = {
  trigger: { position: 'aboveBar', color: '#7a4cc2', shape: 'arrowDown' },
  buy: { position: 'belowBar', color: '#1d6b35', shape: 'arrowUp' },
  sell: { position: 'aboveBar', color: '#b3261e', shape: 'arrowDown' },
  ready: { position: 'belowBar', color: '#5b6170', shape: 'circle' },
};

/** The paper account's statistics as a definition list. */
function paperSummary(paper: PaperReport): HTMLElement {
  const s = paper.summary;
  const rows: Array<[string, string]> = [
    ['Trades', `${s.trades}${s.openTrades > 0 ? ` (${s.openTrades} open at the end)` : ''}`],
    ['Win rate', s.winRatePercent === null ? 'no closed trade' : `${formatPercent(s.winRatePercent)} (${s.wins} won, ${s.losses} lost)`],
    ['Net PnL', `${formatUsd(s.netPnlUsd, true)} (${formatPercent(s.returnPercent, true)})`],
    ['Realized / unrealized', `${formatUsd(s.realizedPnlUsd, true)} / ${formatUsd(s.unrealizedPnlUsd, true)}`],
    ['Fees', formatUsd(s.feesUsd)],
    ['Max drawdown', `${formatPercent(s.maxDrawdownPercent)} (${formatUsd(s.maxDrawdownUsd)})`],
    ['Sharpe (daily, annualized)', s.sharpe === null ? 'under two days' : formatNumber(Number(s.sharpe.toFixed(2)))],
    ['Exposure', formatPercent(s.exposurePercent)],
    ['Final equity', `${formatUsd(s.finalEquityUsd)} from ${formatUsd(paper.depositUsd)}`],
  ];
  return h('dl', { id: 'preview-paper-summary', className: 'stats' }, ...rows.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]));
}

/** The round trips of the paper account as a table. */
function tradesTable(paper: PaperReport): HTMLElement {
  const exitName = (closedBy: string | undefined) => (closedBy === undefined ? 'open' : closedBy === 'order' ? 'an order' : closedBy.replace('_', ' '));
  return h(
    'table',
    { id: 'preview-trades' },
    h('caption', {}, 'Paper trades (round trips)'),
    h('thead', {}, h('tr', {}, ...['Symbol', 'Side', 'Opened', 'Entry', 'Amount', 'Closed', 'Exit', 'By', 'PnL', 'Return'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      ...paper.trades.map((trade) =>
        h(
          'tr',
          { className: trade.pnlUsd < 0 ? 'loss' : 'gain' },
          h('td', {}, trade.symbol),
          h('td', {}, trade.side),
          h('td', {}, formatTime(trade.openedAt)),
          h('td', { className: 'number' }, formatNumber(trade.entryPrice)),
          h('td', { className: 'number' }, formatAmount(trade.amount)),
          h('td', {}, trade.closedAt === undefined ? '' : formatTime(trade.closedAt)),
          h('td', { className: 'number' }, trade.exitPrice === undefined ? '' : formatNumber(trade.exitPrice)),
          h('td', {}, exitName(trade.closedBy)),
          h('td', { className: 'number' }, formatUsd(trade.pnlUsd, true)),
          h('td', { className: 'number' }, formatPercent(trade.returnPercent, true)),
        ),
      ),
    ),
  );
}

/** What the chart shows, said in words (screen readers, tests). */
function describeChart(data: ChartData, result: PreviewResult, readyAt: string | undefined): string {
  const parts = [`${data.timeframe} candles of ${data.symbol}`, `${result.triggers.length} trigger${result.triggers.length === 1 ? '' : 's'}`];
  const trades = data.markers.filter((marker) => marker.kind === 'buy' || marker.kind === 'sell').length;
  if (result.paper !== undefined) parts.push(`${trades} fill${trades === 1 ? '' : 's'} on paper`);
  if (readyAt !== undefined) parts.push(`warming up until ${formatTime(readyAt)}`);
  parts.push(`thresholds ${data.priceThresholds.map(formatNumber).join(', ') || 'none'}`);
  if (data.indicators.length > 0) parts.push(`indicators ${data.indicators.map((pane) => pane.label).join('; ')}`);
  if (data.equity !== undefined) parts.push('equity');
  return parts.join(', ');
}

export function previewView(session: () => Session, language: LanguageClient): PreviewView {
  const chartHost = h('div', { className: 'chart', id: 'preview-chart', role: 'img', 'aria-label': 'Prices of the preview with thresholds and triggers' });
  const summary = h('p', { id: 'preview-summary', role: 'status', 'aria-live': 'polite' }, 'Preview replays the host’s recording in virtual time: nothing is sent.');
  const cursor = h('div', { id: 'preview-cursor', 'aria-live': 'polite' });
  const triggers = h('ol', { id: 'preview-triggers' });
  const paperPart = h('div', { id: 'preview-paper' });
  const legend = h('ul', { id: 'preview-legend', className: 'legend' });
  let chart: IChartApi | undefined;
  let shown: PreviewResult | undefined;
  /** A recording the user chose (JSON Lines), previewed in the worker instead of the host's. */
  let uploaded: { name: string; text: string } | undefined;
  const source = h('p', { id: 'preview-source', className: 'help' }, 'On the host’s recording.');
  const file = h('input', { id: 'preview-file', type: 'file', accept: '.jsonl,.json,application/x-ndjson,text/plain', 'aria-describedby': 'preview-source' });
  const useHost = h('button', { type: 'button', id: 'preview-host', hidden: true }, 'Use the host’s recording');
  file.addEventListener('change', () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    void chosen.text().then((text) => {
      uploaded = { name: chosen.name, text };
      source.textContent = `On ${chosen.name} (${Math.round(text.length / 1024)} KB), in this page: nothing is sent to the host.`;
      useHost.hidden = false;
    });
  });
  useHost.addEventListener('click', () => {
    uploaded = undefined;
    file.value = '';
    source.textContent = 'On the host’s recording.';
    useHost.hidden = true;
  });

  // The paper account order steps trade in (as `eql preview --fee --slippage --deposit` takes them).
  const number = (id: string, value: string, min: string, max: string, step: string) => h('input', { id, type: 'number', value, min, max, step, inputmode: 'decimal' });
  const fee = number('preview-fee', '0', '0', '10', '0.01');
  const slippage = number('preview-slippage', '0', '0', '10', '0.01');
  const deposit = number('preview-deposit', '10000', '1', '1000000000000', '100');
  const account = h(
    'fieldset',
    { className: 'toolbar', id: 'preview-account' },
    h('legend', {}, 'Paper account (for order steps)'),
    h('label', { for: 'preview-fee' }, 'Fee % '),
    fee,
    h('label', { for: 'preview-slippage' }, 'Slippage % '),
    slippage,
    h('label', { for: 'preview-deposit' }, 'Deposit USD '),
    deposit,
  );
  /** The account's fields, checked as the host checks them; a message names a field out of range. */
  const accountValues = (): { fee: number; slippage: number; deposit: number } => {
    const read = (input: HTMLInputElement, name: string, low: number, high: number, lowOpen = false) => {
      const value = input.value.trim() === '' ? Number.NaN : Number(input.value);
      if (!Number.isFinite(value) || (lowOpen ? value <= low : value < low) || value > high) throw new Error(`${name} must be a number from ${low}${lowOpen ? ' (excluded)' : ''} to ${high}`);
      return value;
    };
    return { fee: read(fee, 'Fee %', 0, 10), slippage: read(slippage, 'Slippage %', 0, 10), deposit: read(deposit, 'Deposit USD', 0, 1e12, true) };
  };

  const symbolChoice = h('select', { id: 'preview-symbol', hidden: true, 'aria-label': 'Symbol to chart' });
  symbolChoice.addEventListener('change', () => {
    if (shown) draw(shown, symbolChoice.value);
  });

  /** The markers of the chart drawn now, for the candle under the cursor. */
  let drawnMarkers: ChartData['markers'] = [];
  const showStates = (result: PreviewResult, at: number) => {
    const states = statesAt(result, at);
    const here = drawnMarkers.filter((marker) => marker.time === at && marker.kind !== 'ready');
    replaceChildren(
      cursor,
      h('p', {}, `At ${formatTime(at * 1000)}:`),
      here.length === 0 ? undefined : h('ul', { className: 'markers' }, ...here.map((marker) => h('li', {}, marker.text.replace(/ at (\S+)$/, (_, iso: string) => ` at ${formatTime(iso)}`)))),
      h(
        'ul',
        {},
        ...states.map((state) =>
          h(
            'li',
            {},
            `${state.source}.${state.method ?? ''} ${state.path}: ${state.holds ? 'holds' : 'does not hold'}`,
            state.value === undefined ? '' : ` (value ${formatNumber(state.value)}${state.threshold === undefined ? '' : `, threshold ${formatNumber(state.threshold)}`})`,
            state.status && state.status !== 'ready' ? ` — ${state.status}${state.reason ? `: ${state.reason}` : ''}` : '',
          ),
        ),
      ),
    );
  };

  const draw = (result: PreviewResult, symbol?: string) => {
    chart?.remove();
    chart = undefined;
    const data = chartData(result, symbol);
    drawnMarkers = data?.markers ?? [];
    replaceChildren(legend);
    if (data === undefined) {
      replaceChildren(chartHost, h('p', {}, 'No prices to draw: the query reads none.'));
      chartHost.dataset.candles = '0';
      return;
    }
    replaceChildren(chartHost);
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    const ink = dark ? '#e7e9ee' : '#1b1d23';
    chart = createChart(chartHost, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: ink, attributionLogo: false, panes: { separatorColor: dark ? '#343844' : '#c9ccd4' } },
      grid: { vertLines: { visible: false }, horzLines: { color: dark ? '#343844' : '#e4e6ec' } },
      timeScale: { timeVisible: true, secondsVisible: false },
    });
    const readyAt = result.timeline.flatMap((entry) => entry.changes).find((change) => change.readyAt !== undefined)?.readyAt;
    // What the canvas shows, said in the markup too (screen readers, tests).
    chartHost.dataset.symbol = data.symbol;
    chartHost.dataset.timeframe = data.timeframe;
    chartHost.dataset.candles = String(data.candles.length);
    chartHost.dataset.warmupUntil = readyAt ?? '';
    chartHost.dataset.triggers = String(result.triggers.length);
    chartHost.dataset.markers = data.markers.map((marker) => marker.kind).join(' ');
    chartHost.dataset.indicators = data.indicators.map((pane) => pane.label).join('; ');
    chartHost.dataset.equityPoints = String(data.equity?.values.length ?? 0);
    chartHost.setAttribute('aria-label', describeChart(data, result, readyAt));

    const precision = pricePrecision(data.candles[0]?.close ?? 1);
    const priceFormat = { type: 'price' as const, precision, minMove: 10 ** -precision };
    if (data.warmUp.length > 0) {
      const warm = chart.addSeries(AreaSeries, { lineVisible: false, topColor: 'rgba(128,128,128,0.35)', bottomColor: 'rgba(128,128,128,0.05)', priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false, priceFormat });
      warm.setData(data.warmUp.map((point) => ({ time: time(point.time), value: point.value })));
    }
    const candles = chart.addSeries(CandlestickSeries, { upColor: '#1d6b35', downColor: '#b3261e', wickUpColor: '#1d6b35', wickDownColor: '#b3261e', borderVisible: false, title: `${data.symbol} ${data.timeframe}`, priceFormat });
    candles.setData(data.candles.map((candle) => ({ ...candle, time: time(candle.time) })));
    for (const threshold of data.priceThresholds) candles.createPriceLine({ price: threshold, color: '#b3261e', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: 'threshold' });
    createSeriesMarkers(
      candles,
      data.markers.map((marker): SeriesMarkerBar<Time> => ({ time: time(marker.time), ...MARKER_STYLE[marker.kind], text: marker.label })),
    );

    let pane = 0;
    const left: string[] = [];
    for (const indicator of data.indicators) {
      if (pane >= MAX_INDICATOR_PANES) {
        left.push(indicator.label);
        continue;
      }
      pane += 1;
      const line = chart.addSeries(LineSeries, { color: dark ? '#f0b35a' : '#a35a00', lineWidth: 2, title: indicator.label, priceFormat: { type: 'price', precision: pricePrecision(indicator.values[0]?.value ?? 1), minMove: 10 ** -pricePrecision(indicator.values[0]?.value ?? 1) } }, pane);
      line.setData(indicator.values.map((point) => ({ time: time(point.time), value: point.value })));
      if (indicator.threshold !== undefined) line.createPriceLine({ price: indicator.threshold, color: '#b3261e', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: 'threshold' });
      if (indicator.operand !== undefined) {
        const operand = chart.addSeries(LineSeries, { color: dark ? '#9aa3b5' : '#5b6170', lineWidth: 1, title: indicator.operand.name }, pane);
        operand.setData(indicator.operand.values.map((point) => ({ time: time(point.time), value: point.value })));
      }
      chart.panes()[pane]?.setStretchFactor(0.45);
    }
    if (data.equity !== undefined) {
      pane += 1;
      const equity = chart.addSeries(AreaSeries, { lineColor: dark ? '#7fb0ff' : '#1f5fbf', topColor: 'rgba(31,95,191,0.25)', bottomColor: 'rgba(31,95,191,0.02)', lineWidth: 2, title: 'equity USD', priceFormat: { type: 'price', precision: 2, minMove: 0.01 } }, pane);
      equity.setData(data.equity.values.map((point) => ({ time: time(point.time), value: point.value })));
      equity.createPriceLine({ price: data.equity.deposit, color: '#5b6170', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: 'deposit' });
      chart.panes()[pane]?.setStretchFactor(0.45);
    }
    chartHost.dataset.panes = String(pane + 1);
    chartHost.classList.toggle('tall', pane > 0);
    replaceChildren(
      legend,
      h('li', {}, `Candles: ${data.symbol}, ${data.timeframe}`),
      ...data.indicators.slice(0, MAX_INDICATOR_PANES).map((indicator) => h('li', {}, `Indicator pane: ${indicator.label}`)),
      data.equity === undefined ? undefined : h('li', {}, 'Equity of the paper account, with its deposit'),
      left.length === 0 ? undefined : h('li', {}, `Not drawn (more than ${MAX_INDICATOR_PANES} panes): ${left.join('; ')}`),
    );
    chart.timeScale().fitContent();
    chart.subscribeCrosshairMove((param) => {
      if (param.time !== undefined) showStates(result, param.time as number);
    });
    showStates(result, result.trigger ? seconds(result.trigger.at) : seconds(result.from));
  };

  const run = async (request: unknown): Promise<void> => {
    summary.textContent = 'Replaying…';
    try {
      const paper = accountValues();
      let result: PreviewResult;
      if (uploaded) {
        const answer = await language.previewRecording(request, uploaded.text, { feeRate: paper.fee / 100, slippage: paper.slippage / 100, depositUsd: paper.deposit });
        if (!answer.ok) throw new Error(answer.problems.join('; '));
        result = answer.result;
      } else {
        const { data, error } = await session().client.api.POST('/v2/auto/queries/preview', { body: request as never, params: { query: paper } });
        if (error !== undefined || data === undefined) throw Object.assign(new Error('the host refused the preview'), { body: error });
        result = data as unknown as PreviewResult;
      }
      const fired = result.triggered
        ? `Would have fired ${result.triggers.length} time${result.triggers.length === 1 ? '' : 's'}, first at ${formatTime(result.trigger?.at)} (recording ${formatTime(result.from)} to ${formatTime(result.to)}).`
        : `Would not have fired between ${formatTime(result.from)} and ${formatTime(result.to)} (${result.endedBy}).`;
      const money = result.paper === undefined ? '' : ` On paper: ${result.paper.summary.trades} trade${result.paper.summary.trades === 1 ? '' : 's'}, net ${formatUsd(result.paper.summary.netPnlUsd, true)}, max drawdown ${formatPercent(result.paper.summary.maxDrawdownPercent)}.`;
      summary.textContent = fired + money;
      replaceChildren(triggers, ...result.triggers.map((trigger) => h('li', {}, h('button', { type: 'button', className: 'link', onClick: () => showStates(result, seconds(trigger.at)) }, `Trigger ${trigger.triggerIndex} at ${formatTime(trigger.at)}`))));
      replaceChildren(paperPart, ...(result.paper === undefined ? [] : [h('h3', {}, 'On paper'), paperSummary(result.paper), result.paper.trades.length === 0 ? h('p', {}, 'No trade.') : tradesTable(result.paper)]));
      const symbols = chartSymbols(result);
      replaceChildren(symbolChoice, ...symbols.map((symbol) => h('option', { value: symbol }, symbol)));
      symbolChoice.hidden = symbols.length < 2;
      shown = result;
      draw(result, symbols[0]);
    } catch (error) {
      summary.textContent = `Preview failed: ${errorText(error)}`;
    }
  };

  const element = h(
    'section',
    { id: 'preview', className: 'panel', 'aria-labelledby': 'preview-title' },
    h('h2', { id: 'preview-title' }, 'Preview on a recording'),
    h('div', { className: 'toolbar' }, h('label', { for: 'preview-file' }, 'Your recording (JSON Lines): '), file, useHost),
    source,
    account,
    summary,
    symbolChoice,
    chartHost,
    legend,
    triggers,
    cursor,
    paperPart,
  );
  return { element, run };
}
