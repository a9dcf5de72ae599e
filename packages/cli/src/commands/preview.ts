import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PaperReport, type PreviewPaperOptions, type PreviewResult, parseInstant, parseRecording, preview, type QueryRequest, RecordingError, type TimelineChange, validate } from '@eql/core';
import { validationJson, validationText } from '../format.js';
import { loadDocument } from '../input.js';
import { type CliIo, paint, UnusableInput } from '../io.js';
import { servedByRecording } from '../served.js';
import { reportSyntaxErrors } from './validate.js';
import { terminalText } from '../terminal-text.js';

/** Recordings of at least this many observations show the replay's progress. */
export const PROGRESS_FROM = 10_000;

export interface PreviewFlags {
  /** The recording (default: the sample the host replays, see {@link sampleRecordingPath}). */
  data?: string;
  json: boolean;
  from?: string;
  to?: string;
  /** Percent of each fill's notional paid as a fee on the paper venue. */
  fee?: string;
  /** Percent worse than the replayed price that market orders and exits fill at. */
  slippage?: string;
  /** The paper account's deposit in USD. */
  deposit?: string;
  /** Create the query again at each expiry (a backtest longer than its lifetime). */
  renew?: boolean;
}

/**
 * The recording `eql preview` replays without `--data`: the one the host replays by default (3 days of
 * minute prices of BTC, ETH and SOL with posts, news and LLM verdicts), shipped in `@eql/server`'s
 * `data/`, or in the repository's fixtures when run from a checkout. Found without loading the host.
 */
export function sampleRecordingPath(): string {
  const server = fileURLToPath(import.meta.resolve('@eql/server'));
  const packaged = join(dirname(server), '..', 'data', 'market-3d.jsonl');
  return existsSync(packaged) ? packaged : join(dirname(server), '..', '..', '..', 'fixtures', 'recordings', 'market-3d.jsonl');
}

/**
 * `eql preview FILE [--data RECORDING.jsonl]`: replays the recording against the query in virtual
 * time and prints when it would have fired, the timeline of its conditions and what its actions
 * would have done (nothing is sent). Exit 0 after a replay (whether or not it fired), 1 for an invalid
 * query, 2 for unusable input.
 */
export async function previewCommand(file: string, flags: PreviewFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  if (reportSyntaxErrors(document, flags.json, io)) return 1;
  const validation = validate(document.value);
  if (!validation.valid) {
    io.stdout(flags.json ? validationJson(validation, document.map) : validationText(io, document.name, 'api-key', validation, document.map));
    return 1;
  }
  const data = flags.data ?? sampleRecordingPath();
  if (flags.data === undefined && !flags.json) io.stderr(`no --data: replaying the sample recording (3 days of BTC, ETH and SOL minute prices from 2026-01-05, with posts, news and LLM verdicts)\n`);
  let text: string;
  try {
    text = await io.readFile(data);
  } catch {
    throw new UnusableInput(`cannot read the recording ${data}`);
  }
  let recording;
  try {
    recording = parseRecording(text);
  } catch (error) {
    if (error instanceof RecordingError) throw new UnusableInput(`${data}: ${error.message}`);
    throw error;
  }
  const options: { from?: number; to?: number; paper?: PreviewPaperOptions; renew?: boolean } = { paper: paperOptions(flags), renew: flags.renew === true };
  for (const bound of ['from', 'to'] as const) {
    const value = flags[bound];
    if (value === undefined) continue;
    const time = parseInstant(value);
    if (time === undefined) throw new UnusableInput(`--${bound} must be an ISO 8601 time with a zone (2026-01-06T00:00:00Z) or epoch milliseconds, not ${JSON.stringify(value)}`);
    options[bound] = time;
  }
  const from = options.from ?? recording.start;
  const to = options.to ?? recording.end;
  if (options.from !== undefined && options.to !== undefined && from > to) {
    throw new UnusableInput(`the range is reversed: --from ${new Date(from).toISOString()} is after --to ${new Date(to).toISOString()}`);
  }
  if (from > recording.end || to < recording.start || from > to) {
    throw new UnusableInput(`the range ${new Date(from).toISOString()} to ${new Date(to).toISOString()} holds nothing of ${data} (${new Date(recording.start).toISOString()} to ${new Date(recording.end).toISOString()})`);
  }
  // Everything of the recording before --from is history: the query starts as a replay from the start would hold it.
  const served = servedByRecording(recording);
  const checked = validate(document.value, { served });
  if (!checked.valid) {
    io.stdout(flags.json ? validationJson(checked, document.map) : validationText(io, document.name, 'api-key', checked, document.map));
    return 1;
  }
  // A long recording shows how far the replay is, on standard error when it is a terminal (never in --json's output).
  const long = io.progress === true && recording.observations.length >= PROGRESS_FROM;
  const result = preview(document.value as QueryRequest, recording, long ? { ...options, onProgress: (fraction) => io.stderr(`replaying ${recording.observations.length} observations: ${Math.floor(fraction * 100)}%\r`) } : options);
  if (long) io.stderr(`replaying ${recording.observations.length} observations: done\n`);
  io.stdout(flags.json ? `${JSON.stringify(result, null, 2)}\n` : previewText(io, document.name, flags.data ?? 'the sample recording', result));
  return 0;
}

/** The paper account of --fee, --slippage and --deposit (percents to fractions), each checked. */
function paperOptions(flags: PreviewFlags): PreviewPaperOptions {
  const number = (flag: 'fee' | 'slippage' | 'deposit', max: number): number | undefined => {
    const text = flags[flag];
    if (text === undefined) return undefined;
    const value = Number(text);
    const positive = flag === 'deposit';
    if (text.trim() === '' || !Number.isFinite(value) || value < 0 || (positive && value === 0) || value > max) {
      throw new UnusableInput(`--${flag} must be ${positive ? 'an amount in USD above 0' : `a percent from 0 to ${max}`}, not ${JSON.stringify(text)}`);
    }
    return value;
  };
  const options: PreviewPaperOptions = {};
  const fee = number('fee', 10);
  const slippage = number('slippage', 10);
  const deposit = number('deposit', 1e12);
  if (fee !== undefined) options.feeRate = fee / 100;
  if (slippage !== undefined) options.slippage = slippage / 100;
  if (deposit !== undefined) options.depositUsd = deposit;
  return options;
}

/** One condition and why it holds or not: its value against the threshold (or the live operand), its readiness, the last item's score. */
function describe(state: TimelineChange | (Omit<TimelineChange, 'readyAt' | 'lastScore'> & { readyAt?: number | string; lastScore?: { confidence: number; at: number | string } })): string {
  const what = [state.source, state.method].filter(Boolean).join('.');
  const value = state.value === undefined ? '' : ` = ${round(state.value)}`;
  const against = state.operand !== undefined ? `live ${state.operand}` : 'threshold';
  const threshold = state.threshold === undefined ? '' : ` (${against} ${round(state.threshold)})`;
  const score = state.lastScore === undefined ? '' : ` last item scored ${round(state.lastScore.confidence)} at ${isoOf(state.lastScore.at)}`;
  let readiness = '';
  if (state.status === 'warming_up') readiness = ` warming up${state.readyAt === undefined ? '' : ` until ${isoOf(state.readyAt)}`}${state.reason ? ` (${state.reason})` : ''}`;
  if (state.status === 'no_data') readiness = ` no data${state.reason ? ` (${state.reason})` : ''}`;
  return terminalText(`${state.path || '/'} ${what}${value}${threshold}${score} ${state.holds ? 'holds' : 'does not hold'}${readiness}`);
}

function isoOf(at: number | string): string {
  return typeof at === 'number' ? new Date(at).toISOString() : at;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) >= 100 ? 2 : 4);
}

/** The replay for people; what came from the file or the data (names, step ids, messages, results) is escaped for the terminal. */
export function previewText(io: CliIo, name: string, data: string, result: PreviewResult): string {
  let text = `${terminalText(`${name} replayed on ${data} from ${result.from} to ${result.to}`)}\n`;
  if (result.trigger) {
    text += `${paint(io, 'green', '✓')} fires at ${result.trigger.at}${result.triggers.length > 1 ? ` (and ${result.triggers.length - 1} more time${result.triggers.length > 2 ? 's' : ''})` : ''}\n`;
    for (const state of result.trigger.conditionStates) text += `    ${describe(state)}\n`;
  } else {
    text += `${paint(io, 'yellow', '–')} does not fire in this recording\n`;
  }
  text += `timeline: ${result.timeline.length} change${result.timeline.length === 1 ? '' : 's'}${result.timelineTruncated ? ' (truncated)' : ''}\n`;
  for (const entry of result.timeline.slice(0, 40)) {
    const changes = entry.changes.map((change) => describe(change)).join('; ');
    const mark = entry.trigger !== undefined ? paint(io, 'green', `FIRES (${entry.trigger})`.padEnd(10)) : entry.wouldTriggerNow ? paint(io, 'green', 'would fire') : ' '.repeat(10);
    text += `  ${entry.at}  ${mark}  ${changes}\n`;
  }
  if (result.timeline.length > 40) text += `  … ${result.timeline.length - 40} more (use --json for all)\n`;
  if (result.executions.length > 0) {
    text += result.paper ? 'actions (dry run; orders on paper):\n' : 'actions (dry run):\n';
    for (const execution of result.executions) {
      const detail = execution.error ? `${execution.error.code}: ${execution.error.message}` : JSON.stringify(execution.result ?? {});
      text += `  ${terminalText(`${execution.stepId} (${execution.type}) ${execution.status} ${detail}`)}\n`;
    }
  }
  if (result.paper) text += paperText(io, result.paper);
  for (const problem of result.problems.slice(0, 10)) text += `  ${paint(io, 'yellow', 'problem')} ${terminalText(`${problem.at} ${problem.code}: ${problem.message}`)}\n`;
  if (result.endedBy === 'expired' && result.expiredAt !== undefined) text += `expired at ${result.expiredAt} (its expiresIn from ${result.from}), before the end of the data (--renew creates it again at each expiry)\n`;
  if (result.lives !== undefined) text += `created ${result.lives} times over the run (--renew)\n`;
  text += `status at the end: ${result.status}\n`;
  return text;
}

/** Shown trades at most; --json has them all. */
const TRADES_SHOWN = 20;

/** The paper account after the run: its statistics, then its trades. */
function paperText(io: CliIo, paper: PaperReport): string {
  const s = paper.summary;
  const usd = (value: number, signed = false) => `${signed && value >= 0 ? '+' : value < 0 ? '-' : ''}$${Math.abs(value).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const pct = (value: number, signed = false) => `${signed && value >= 0 ? '+' : ''}${value.toFixed(2)} %`;
  const net = paint(io, s.netPnlUsd >= 0 ? 'green' : 'red', `${usd(s.netPnlUsd, true)} (${pct(s.returnPercent, true)})`);
  let text = `paper trading (every venue simulated on paper: deposit ${usd(paper.depositUsd)}, fee ${pct(paper.feeRate * 100)}, slippage ${pct(paper.slippage * 100)}):\n`;
  const closed = `${s.trades} trade${s.trades === 1 ? '' : 's'} closed (${s.wins} won, ${s.losses} lost${s.winRatePercent === null ? '' : `, win rate ${pct(s.winRatePercent)}`})${s.openTrades > 0 ? `, ${s.openTrades} open` : ''}`;
  text += `  ${closed}; net ${net}, fees ${usd(s.feesUsd)}, equity ${usd(s.finalEquityUsd)}\n`;
  text += `  max drawdown ${pct(s.maxDrawdownPercent)} (${usd(s.maxDrawdownUsd)}), Sharpe ${s.sharpe === null ? 'n/a (under two days of returns)' : s.sharpe.toFixed(2)}, exposure ${pct(s.exposurePercent)}\n`;
  for (const trade of paper.trades.slice(0, TRADES_SHOWN)) {
    const exit = trade.open ? 'open' : `${trade.closedAt} @ ${round(trade.exitPrice ?? 0)} ${trade.closedBy ?? ''}`;
    const pnl = paint(io, trade.pnlUsd >= 0 ? 'green' : 'red', `${usd(trade.pnlUsd, true)} (${pct(trade.returnPercent, true)})`);
    text += `  ${terminalText(`${trade.openedAt}  ${trade.side} ${trade.symbol} ${round(trade.amount)} @ ${round(trade.entryPrice)} → ${exit}`)}  ${pnl}\n`;
  }
  if (paper.trades.length > TRADES_SHOWN) text += `  … ${paper.trades.length - TRADES_SHOWN} more trades (use --json for all)\n`;
  return text;
}
