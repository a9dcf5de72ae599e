// The page's side of the language server: an LSP client over the worker's messages. It knows LSP and
// nothing of the editor; the editor extensions (editor/*) turn its answers into CodeMirror's terms.
import {
  BrowserMessageReader,
  BrowserMessageWriter,
  type CodeAction,
  CodeActionRequest,
  type CompletionItem,
  CompletionRequest,
  type CompletionList,
  createProtocolConnection,
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentFormattingRequest,
  type Hover,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  type Position,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type Range,
  type TextEdit,
} from 'vscode-languageserver-protocol/browser';

import type { PreviewPaperOptions } from '@eql/core';
import { PREVIEW_RECORDING, type PreviewRecordingParams, type PreviewRecordingResult } from './preview-request.js';

/** What `eql/convert` answers (see @eql/language-server's REQUESTS). */
export type ConvertResult =
  | { ok: true; text: string; to: 'json' | 'text'; languageId: string; targetUri: string }
  | { ok: false; to: 'json' | 'text'; problems: string[] };

/** The language ids the server knows a document by. */
export const LANGUAGE_IDS = { json: 'eql-json', text: 'eql' } as const;

type DiagnosticsListener = (uri: string, diagnostics: Diagnostic[], version: number | undefined) => void;

/** An LSP client of the EQL language server running in `worker`. */
export class LanguageClient {
  private readonly versions = new Map<string, number>();
  private readonly listeners = new Set<DiagnosticsListener>();

  private constructor(private readonly connection: ProtocolConnection) {
    connection.onNotification(PublishDiagnosticsNotification.type, ({ uri, diagnostics, version }) => {
      for (const listener of this.listeners) listener(uri, diagnostics, version);
    });
  }

  /** Starts the server in the worker and initializes it. */
  static async start(worker: Worker): Promise<LanguageClient> {
    const connection = createProtocolConnection(new BrowserMessageReader(worker), new BrowserMessageWriter(worker));
    connection.listen();
    const client = new LanguageClient(connection);
    await connection.sendRequest(InitializeRequest.type, {
      processId: null,
      rootUri: null,
      capabilities: {
        textDocument: {
          publishDiagnostics: { relatedInformation: false, versionSupport: true, codeDescriptionSupport: true },
          completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
        },
      },
      initializationOptions: {},
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  /** Calls `listener` with every diagnostics the server publishes; returns how to stop. */
  onDiagnostics(listener: DiagnosticsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  open(uri: string, languageId: string, text: string): void {
    this.versions.set(uri, 1);
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
  }

  /** The editor let go of a document. */
  close(uri: string): void {
    if (!this.versions.delete(uri)) return;
    void this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** The whole new text of an open document; returns its version. */
  change(uri: string, text: string): number {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] });
    return version;
  }

  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }

  async completion(uri: string, position: Position): Promise<CompletionItem[]> {
    const answer: CompletionItem[] | CompletionList | null = await this.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
    if (answer === null) return [];
    return Array.isArray(answer) ? answer : answer.items;
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  /** The quick fixes the server offers for `diagnostics` in `range`. */
  async quickFixes(uri: string, range: Range, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
    const answer = await this.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range, context: { diagnostics, only: ['quickfix'] } });
    return (answer ?? []).filter((action): action is CodeAction => 'title' in action && !('command' in action && typeof action.command === 'string'));
  }

  async format(uri: string): Promise<TextEdit[]> {
    return (await this.connection.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } })) ?? [];
  }

  /** Previews `request` on a recording (JSON Lines) in the worker. */
  previewRecording(request: unknown, recording: string, paper?: PreviewPaperOptions): Promise<PreviewRecordingResult> {
    const params: PreviewRecordingParams = paper === undefined ? { request, recording } : { request, recording, paper };
    return this.connection.sendRequest<PreviewRecordingResult>(PREVIEW_RECORDING, params);
  }

  /** The document in its other form (`eql/convert`). */
  convert(uri: string, to?: 'json' | 'text'): Promise<ConvertResult> {
    return this.connection.sendRequest<ConvertResult>('eql/convert', to === undefined ? { uri } : { uri, to });
  }
}
