import { type PreviewResult, parseRecording, preview, type QueryRequest, RecordingError, validate } from '@eql/core';
import { validationJson, validationText } from '../format.js';
import { loadDocument } from '../input.js';
import { type CliIo, paint, UnusableInput } from '../io.js';
import { reportSyntaxErrors } from './validate.js';

export interface PreviewFlags {
  data: string;
  json: boolean;
  from?: string;
  to?: string;
}

/**
 * `eql preview FILE --data RECORDING.jsonl`: replays the recording against the query in virtual
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
  let text: string;
  try {
    text = await io.readFile(flags.data);
  } catch {
    throw new UnusableInput(`cannot read the recording ${flags.data}`);
  }
  let recording;
  try {
    recording = parseRecording(text);
  } catch (error) {
    if (error instanceof RecordingError) throw new UnusableInput(`${flags.data}: ${error.message}`);
    throw error;
  }
  const options: { from?: number; to?: number } = {};
  for (const bound of ['from', 'to'] as const) {
    const value = flags[bound];
    if (value === undefined) continue;
    const time = Date.parse(value);
    if (Number.isNaN(time)) throw new UnusableInput(`--${bound} must be an ISO 8601 time, not ${JSON.stringify(value)}`);
    options[bound] = time;
  }
  const result = preview(document.value as QueryRequest, recording, options);
  io.stdout(flags.json ? `${JSON.stringify(result, null, 2)}\n` : previewText(io, document.name, flags.data, result));
  return 0;
}

function describe(state: { path: string; source: string; method?: string; value?: number; threshold?: number; holds: boolean }): string {
  const what = [state.source, state.method].filter(Boolean).join('.');
  const value = state.value === undefined ? '' : ` = ${round(state.value)}`;
  const threshold = state.threshold === undefined ? '' : ` (threshold ${round(state.threshold)})`;
  return `${state.path || '/'} ${what}${value}${threshold} ${state.holds ? 'holds' : 'does not hold'}`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) >= 100 ? 2 : 4);
}

export function previewText(io: CliIo, name: string, data: string, result: PreviewResult): string {
  let text = `${name} replayed on ${data} from ${result.from} to ${result.to}\n`;
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
    text += 'actions (dry run):\n';
    for (const execution of result.executions) {
      const detail = execution.error ? `${execution.error.code}: ${execution.error.message}` : JSON.stringify(execution.result ?? {});
      text += `  ${execution.stepId} (${execution.type}) ${execution.status} ${detail}\n`;
    }
  }
  for (const problem of result.problems.slice(0, 10)) text += `  ${paint(io, 'yellow', 'problem')} ${problem.at} ${problem.code}: ${problem.message}\n`;
  text += `status at the end: ${result.status}\n`;
  return text;
}
