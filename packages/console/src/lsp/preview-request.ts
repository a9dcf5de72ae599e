// The console's own request to its language worker: preview a query on a recording given as text.
import type { PreviewPaperOptions, PreviewResult } from '@eql/core';

export const PREVIEW_RECORDING = 'eql/previewRecording';

export interface PreviewRecordingParams {
  /** The query request (JSON form). */
  request: unknown;
  /** The recording, JSON Lines (fixtures/recordings/README.md). */
  recording: string;
  /** The paper account order steps trade in (fractions, as the core's preview takes them). */
  paper?: PreviewPaperOptions;
}

export type PreviewRecordingResult = { ok: true; result: PreviewResult } | { ok: false; problems: string[] };
