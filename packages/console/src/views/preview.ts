// Preview on the host's recording, or on one the user chooses (run in the language worker): when the query would have fired, drawn on a chart of the prices it
// reads (TradingView's lightweight-charts): the price line, the thresholds, the warm-up span, trigger
// markers, and the condition states at the instant under the cursor (or the keyboard's).
import type { PreviewResult, TimelineChange } from '@eql/core';
import { AreaSeries, createChart, createSeriesMarkers, type IChartApi, LineSeries, type SeriesMarker, type Time, type UTCTimestamp } from 'lightweight-charts';
import { errorText, formatTime, h, replaceChildren, text } from '../dom.js';
import type { LanguageClient } from '../lsp/language-client.js';
import type { Session } from '../session.js';

export interface PreviewView {
  element: HTMLElement;
  run(request: unknown): Promise<void>;
}

const seconds = (iso: string): UTCTimestamp => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

/** The conditions' states at `time`: the timeline's changes up to it, the latest per condition. */
export function statesAt(result: PreviewResult, time: number): TimelineChange[] {
  const states = new Map<string, TimelineChange>();
  for (const entry of result.timeline) {
    if (Date.parse(entry.at) > time * 1000) break;
    for (const change of entry.changes) states.set(change.path, change);
  }
  return [...states.values()];
}

/** The constant thresholds of the price conditions the timeline shows (drawn as lines on the price). */
function thresholdsOf(result: PreviewResult): Set<number> {
  const thresholds = new Set<number>();
  for (const entry of result.timeline) for (const change of entry.changes) if (typeof change.threshold === 'number' && change.source === 'price') thresholds.add(change.threshold);
  return thresholds;
}

export function previewView(session: () => Session, language: LanguageClient): PreviewView {
  const chartHost = h('div', { className: 'chart', id: 'preview-chart', role: 'img', 'aria-label': 'Prices of the preview with thresholds and triggers' });
  const summary = h('p', { id: 'preview-summary', role: 'status', 'aria-live': 'polite' }, 'Preview replays the host’s recording in virtual time: nothing is sent.');
  const cursor = h('div', { id: 'preview-cursor', 'aria-live': 'polite' });
  const triggers = h('ol', { id: 'preview-triggers' });
  let chart: IChartApi | undefined;
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

  const showStates = (result: PreviewResult, time: number) => {
    const states = statesAt(result, time);
    replaceChildren(
      cursor,
      h('p', {}, `At ${formatTime(time * 1000)}:`),
      h(
        'ul',
        {},
        ...states.map((state) =>
          h('li', {}, `${state.source}.${state.method ?? ''} ${state.path}: ${state.holds ? 'holds' : 'does not hold'}`, state.value === undefined ? '' : ` (value ${text(state.value)}${state.threshold === undefined ? '' : `, threshold ${text(state.threshold)}`})`, state.status && state.status !== 'ready' ? ` — ${state.status}${state.reason ? `: ${state.reason}` : ''}` : ''),
        ),
      ),
    );
  };

  const draw = (result: PreviewResult) => {
    chart?.remove();
    chart = undefined;
    const series = result.prices[0];
    if (!series || series.points.length === 0) {
      replaceChildren(chartHost, h('p', {}, 'No prices to draw: the query reads none.'));
      return;
    }
    replaceChildren(chartHost);
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    chart = createChart(chartHost, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: dark ? '#e7e9ee' : '#1b1d23', attributionLogo: false },
      grid: { vertLines: { visible: false }, horzLines: { color: dark ? '#343844' : '#e4e6ec' } },
      timeScale: { timeVisible: true, secondsVisible: false },
    });
    // One point per second (the chart's time unit), the last of each second.
    const bySecond = new Map<number, number>();
    for (const point of series.points) bySecond.set(seconds(point.at), point.price);
    const data = [...bySecond].map(([time, value]) => ({ time: time as UTCTimestamp, value }));
    const start = seconds(result.from);
    // The warm-up span: from the start until the conditions were ready, shaded under the price.
    const readyAt = result.timeline.flatMap((entry) => entry.changes).find((change) => change.readyAt !== undefined)?.readyAt;
    // What the canvas shows, said in the markup too (screen readers, tests): the warm-up's end, the triggers.
    chartHost.dataset.warmupUntil = readyAt ?? '';
    chartHost.dataset.triggers = String(result.triggers.length);
    chartHost.setAttribute('aria-label', `Prices of ${series.symbol}: ${result.triggers.length} trigger${result.triggers.length === 1 ? '' : 's'}${readyAt === undefined ? '' : `, warming up until ${formatTime(readyAt)}`}; thresholds ${[...thresholdsOf(result)].join(', ') || 'none'}`);
    if (readyAt !== undefined) {
      const warm = chart.addSeries(AreaSeries, { lineVisible: false, topColor: 'rgba(128,128,128,0.35)', bottomColor: 'rgba(128,128,128,0.05)', priceLineVisible: false, lastValueVisible: false, crosshairMarkerVisible: false });
      warm.setData(data.filter((point) => point.time >= start && point.time <= seconds(readyAt)));
    }
    const line = chart.addSeries(LineSeries, { color: dark ? '#7fb0ff' : '#1f5fbf', lineWidth: 2, title: series.symbol });
    line.setData(data);
    for (const threshold of thresholdsOf(result)) line.createPriceLine({ price: threshold, color: '#b3261e', lineWidth: 1, lineStyle: 2, axisLabelVisible: true, title: 'threshold' });
    const markers: SeriesMarker<Time>[] = result.triggers.map((trigger) => ({ time: seconds(trigger.at), position: 'aboveBar', color: '#1d6b35', shape: 'arrowDown', text: `trigger ${trigger.triggerIndex}` }));
    if (readyAt !== undefined) markers.push({ time: seconds(readyAt), position: 'belowBar', color: '#5b6170', shape: 'circle', text: 'ready' });
    markers.sort((a, b) => (a.time as number) - (b.time as number));
    createSeriesMarkers(line, markers);
    chart.timeScale().fitContent();
    chart.subscribeCrosshairMove((param) => {
      if (param.time !== undefined) showStates(result, param.time as number);
    });
    showStates(result, (result.trigger ? seconds(result.trigger.at) : start));
  };

  const run = async (request: unknown): Promise<void> => {
    summary.textContent = 'Replaying…';
    try {
      let result: PreviewResult;
      if (uploaded) {
        const answer = await language.previewRecording(request, uploaded.text);
        if (!answer.ok) throw new Error(answer.problems.join('; '));
        result = answer.result;
      } else {
        const { data, error } = await session().client.api.POST('/v2/auto/queries/preview', { body: request as never });
        if (error !== undefined || data === undefined) throw Object.assign(new Error('the host refused the preview'), { body: error });
        result = data as unknown as PreviewResult;
      }
      summary.textContent = result.triggered
        ? `Would have fired ${result.triggers.length} time${result.triggers.length === 1 ? '' : 's'}, first at ${formatTime(result.trigger?.at)} (recording ${formatTime(result.from)} to ${formatTime(result.to)}).`
        : `Would not have fired between ${formatTime(result.from)} and ${formatTime(result.to)} (${result.endedBy}).`;
      replaceChildren(triggers, ...result.triggers.map((trigger) => h('li', {}, h('button', { type: 'button', className: 'link', onClick: () => showStates(result, seconds(trigger.at)) }, `Trigger ${trigger.triggerIndex} at ${formatTime(trigger.at)}`))));
      draw(result);
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
    summary,
    chartHost,
    triggers,
    cursor,
  );
  return { element, run };
}
