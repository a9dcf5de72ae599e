// The console's own request to its language worker: preview a query on a recording given as text.
import type { PreviewResult } from '@eql/core';

export const PREVIEW_RECORDING = 'eql/previewRecording';

export interface PreviewRecordingParams {
  /** The query request (JSON form). */
  request: unknown;
  /** The recording, JSON Lines (fixtures/recordings/README.md). */
  recording: string;
}

export type PreviewRecordingResult = { ok: true; result: PreviewResult } | { ok: false; problems: string[] };
