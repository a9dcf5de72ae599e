import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  IPCMessageReader,
  IPCMessageWriter,
  type MessageConnection,
  type MessageReader,
  type MessageWriter,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node.js';
import type {
  ApplyWorkspaceEditParams,
  ClientCapabilities,
  InitializeResult,
  Position,
  PublishDiagnosticsParams,
  ShowMessageParams,
  TextDocumentContentChangeEvent,
} from 'vscode-languageserver';
import { createConnection } from 'vscode-languageserver/node.js';
import { createEqlServices, type EqlServiceOptions, startServer } from '../../src/index.js';

/** What an LSP client of the tests declares: files can be created, documents shown. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ['create'] }, applyEdit: true },
  textDocument: { publishDiagnostics: { versionSupport: true }, codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor'] } } } },
  window: { showDocument: { support: true } },
};

/**
 * A JSON-RPC client of the language server, speaking real LSP messages over a pair of streams. It
 * records what the server pushes: diagnostics, messages, workspace edits (which it applies: `applied`).
 */
export class TestClient {
  readonly published: PublishDiagnosticsParams[] = [];
  readonly messages: ShowMessageParams[] = [];
  readonly edits: ApplyWorkspaceEditParams[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(readonly connection: MessageConnection) {
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
      this.published.push(params);
      for (const waiter of this.waiters) waiter();
    });
    connection.onNotification('window/showMessage', (params: ShowMessageParams) => this.messages.push(params));
    connection.onRequest('workspace/applyEdit', (params: ApplyWorkspaceEditParams) => {
      this.edits.push(params);
      return { applied: true };
    });
    connection.onRequest('window/showDocument', () => ({ success: true }));
    connection.onRequest('workspace/configuration', () => []);
    connection.onRequest('client/registerCapability', () => null);
    connection.listen();
  }

  async initialize(initializationOptions?: unknown): Promise<InitializeResult> {
    const result = await this.connection.sendRequest<InitializeResult>('initialize', { processId: null, rootUri: null, capabilities: CLIENT_CAPABILITIES, initializationOptions });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  async open(uri: string, languageId: string, text: string, version = 1): Promise<void> {
    await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
  }

  async change(uri: string, version: number, contentChanges: TextDocumentContentChangeEvent[]): Promise<void> {
    await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  /** Sends a notification, such as `workspace/didChangeConfiguration`. */
  async notify(method: string, params: unknown): Promise<void> {
    await this.connection.sendNotification(method, params);
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  /**
   * The first diagnostics published for `uri` that pass `accept` (already received or still to come).
   * `timeoutMs` is a safety net for diagnostics that never come, not a budget (a loaded machine is slow).
   */
  diagnostics(uri: string, accept: (params: PublishDiagnosticsParams) => boolean = () => true, timeoutMs = 30_000): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.published.find((params) => params.uri === uri && accept(params));
        if (found === undefined) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no diagnostics for ${uri} within ${timeoutMs} ms (got ${JSON.stringify(this.published.filter((p) => p.uri === uri).map((p) => p.version))})`));
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }

  /** Asks the server to shut down (no `exit`: an in-process server would end the test process). */
  async shutdown(): Promise<void> {
    await this.connection.sendRequest('shutdown');
  }

  dispose(): void {
    this.connection.dispose();
  }
}

/** A server and a client in this process, joined by two in-memory streams. */
export function connectInMemory(options: EqlServiceOptions = {}): TestClient {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  // Message readers rather than raw streams: with raw streams the node connection ends the process when they close.
  const server = createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
  startServer(server, createEqlServices(options));
  return new TestClient(createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer)));
}

/** A client of a server running as a child process, over its stdio or its IPC channel. */
export function connectToProcess(child: ChildProcess, transport: 'stdio' | 'ipc'): TestClient {
  let reader: MessageReader;
  let writer: MessageWriter;
  if (transport === 'ipc') {
    reader = new IPCMessageReader(child);
    writer = new IPCMessageWriter(child);
  } else {
    if (child.stdout === null || child.stdin === null) throw new Error('the child has no stdio pipes');
    reader = new StreamMessageReader(child.stdout);
    writer = new StreamMessageWriter(child.stdin);
  }
  return new TestClient(createMessageConnection(reader, writer));
}

/** Text with a `|` cursor marker: the text without it and the position of the marker. */
export function withCursor(marked: string): { text: string; position: Position; offset: number } {
  const offset = marked.indexOf('|');
  if (offset < 0) throw new Error('no | cursor marker');
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  return { text, offset, position: positionOf(text, offset) };
}

export function positionOf(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** The range of the first occurrence of `needle` (after `after`, when given) in `text`. */
export function rangeOf(text: string, needle: string, after?: string): { start: Position; end: Position } {
  const from = after === undefined ? 0 : text.indexOf(after);
  const start = text.indexOf(needle, Math.max(0, from));
  if (start < 0 || from < 0) throw new Error(`${needle} not found`);
  return { start: positionOf(text, start), end: positionOf(text, start + needle.length) };
}
