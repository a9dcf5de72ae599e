/// <reference lib="webworker" />
// The EQL language server in a web worker: the same services the editor extension runs
// (@eql/language-server), over LSP messages posted between the page and the worker. No rule of the
// language exists twice. The worker also previews a query on a recording the user chose in the page
// (`eql/previewRecording`): the core's preview, in virtual time, off the page's thread.
import { parseRecording, preview, type QueryRequest, validate } from '@eql/core';
import { createEqlServices, startServer } from '@eql/language-server';
import { BrowserMessageReader, BrowserMessageWriter, createConnection } from 'vscode-languageserver/browser';
import { PREVIEW_RECORDING, type PreviewRecordingParams, type PreviewRecordingResult } from './preview-request.js';

declare const self: DedicatedWorkerGlobalScope;

const connection = createConnection(new BrowserMessageReader(self), new BrowserMessageWriter(self));
startServer(connection, createEqlServices());

connection.onRequest(PREVIEW_RECORDING, (params: PreviewRecordingParams): PreviewRecordingResult => {
  const checked = validate(params.request);
  if (!checked.valid) return { ok: false, problems: checked.errors };
  try {
    return { ok: true, result: preview(params.request as QueryRequest, parseRecording(params.recording), params.paper === undefined ? {} : { paper: params.paper }) };
  } catch (error) {
    return { ok: false, problems: [error instanceof Error ? error.message : String(error)] };
  }
});
