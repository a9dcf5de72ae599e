import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { SettingsStore } from '../settings.js';
import type { DocumentParser } from './document-parser.js';
import type { DocumentValidator } from './document-validator.js';
import { formOf } from './document-form.js';
import type { DocumentState, ParsedDocument, ValidatedDocument } from './eql-document.js';

/** Timers, injectable so that tests and benchmarks can drive the debounce. */
export interface Timers {
  /** Calls `callback` once after `ms` milliseconds; returns a handle for `clear`. */
  set(callback: () => void, ms: number): unknown;
  /** Cancels a timer set by `set`, if it has not run yet. */
  clear(handle: unknown): void;
}

/** The timers of the runtime: setTimeout and clearTimeout. */
export const REAL_TIMERS: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The open documents and their states. Opening validates at once; a change only records the new
 * text and schedules validation after a quiet time (`eql.validation.debounceMs`). Requests never
 * wait for that: `get(uri, state)` brings the latest text up to the state the feature needs.
 */
export interface DocumentManager {
  /** Starts tracking a document the client opened, and validates it at once. */
  open(uri: string, languageId: string, version: number, text: string): void;
  /** Applies the client's edits to an open document and schedules its validation after the debounce time. */
  change(uri: string, version: number, changes: readonly TextDocumentContentChangeEvent[]): void;
  /** Stops tracking a document the client closed. */
  close(uri: string): void;
  /** The latest text of an open document, parsed; undefined when the document is not open. */
  get(uri: string, state: 'parsed'): ParsedDocument | undefined;
  /**
   * The latest text of an open document, parsed and validated (now, when its validation is still pending);
   * undefined when the document is not open.
   */
  get(uri: string, state: 'validated'): ValidatedDocument | undefined;
  /** The state the latest text of a document has reached. */
  stateOf(uri: string): DocumentState | undefined;
  /** Whether the document is open. */
  has(uri: string): boolean;
  /** The URIs of the open documents. */
  uris(): string[];
  /** Called once per version when that version is validated (to publish its diagnostics). */
  onValidated(listener: (document: ValidatedDocument) => void): () => void;
  /** Validates every open document again (after a settings change). */
  revalidateAll(): void;
  /** Cancels pending validations and forgets every document and listener. */
  dispose(): void;
}

interface Entry {
  textDocument: TextDocument;
  parsed?: ParsedDocument;
  validated?: ValidatedDocument;
  /** The version whose validation the listeners were told of. */
  announced?: number;
  timer?: unknown;
}

/** The document manager of the server: parses and validates on demand, caching both per version. */
export class DefaultDocumentManager implements DocumentManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(document: ValidatedDocument) => void>();

  constructor(
    private readonly parser: DocumentParser,
    private readonly validator: DocumentValidator,
    private readonly settings: SettingsStore,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  open(uri: string, languageId: string, version: number, text: string): void {
    this.cancel(uri);
    this.entries.set(uri, { textDocument: TextDocument.create(uri, languageId, version, text) });
    this.announce(uri);
  }

  change(uri: string, version: number, changes: readonly TextDocumentContentChangeEvent[]): void {
    const entry = this.entries.get(uri);
    if (entry === undefined) return;
    this.cancel(uri);
    const textDocument = TextDocument.update(entry.textDocument, [...changes], version);
    const next: Entry = { textDocument };
    if (entry.announced !== undefined) next.announced = entry.announced;
    this.entries.set(uri, next);
    next.timer = this.timers.set(() => {
      next.timer = undefined;
      this.announce(uri);
    }, this.settings.current.validation.debounceMs);
  }

  close(uri: string): void {
    this.cancel(uri);
    this.entries.delete(uri);
  }

  get(uri: string, state: 'parsed'): ParsedDocument | undefined;
  get(uri: string, state: 'validated'): ValidatedDocument | undefined;
  get(uri: string, state: 'parsed' | 'validated'): ParsedDocument | ValidatedDocument | undefined {
    const entry = this.entries.get(uri);
    if (entry === undefined) return undefined;
    return state === 'parsed' ? this.parsed(entry) : this.validated(entry);
  }

  stateOf(uri: string): DocumentState | undefined {
    const entry = this.entries.get(uri);
    if (entry === undefined) return undefined;
    return entry.validated ? 'validated' : entry.parsed ? 'parsed' : 'changed';
  }

  has(uri: string): boolean {
    return this.entries.has(uri);
  }

  uris(): string[] {
    return [...this.entries.keys()];
  }

  onValidated(listener: (document: ValidatedDocument) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  revalidateAll(): void {
    for (const [uri, entry] of this.entries) {
      entry.validated = undefined;
      entry.announced = undefined;
      this.cancel(uri);
      this.announce(uri);
    }
  }

  dispose(): void {
    for (const uri of this.entries.keys()) this.cancel(uri);
    this.entries.clear();
    this.listeners.clear();
  }

  private parsed(entry: Entry): ParsedDocument {
    if (entry.parsed === undefined) {
      const { textDocument } = entry;
      const text = textDocument.getText();
      const form = formOf(textDocument.uri, textDocument.languageId, text);
      entry.parsed = { state: 'parsed', uri: textDocument.uri, form, version: textDocument.version, textDocument, parse: this.parser.parse(text, form) };
    }
    return entry.parsed;
  }

  private validated(entry: Entry): ValidatedDocument {
    if (entry.validated === undefined) {
      const parsed = this.parsed(entry);
      const validation = this.validator.validate(parsed.parse);
      entry.validated = validation === undefined ? { ...parsed, state: 'validated' } : { ...parsed, state: 'validated', validation };
    }
    return entry.validated;
  }

  /** Validates the latest version (if not yet) and tells the listeners, once per version. */
  private announce(uri: string): void {
    const entry = this.entries.get(uri);
    if (entry === undefined) return;
    const document = this.validated(entry);
    if (entry.announced === document.version) return;
    entry.announced = document.version;
    for (const listener of this.listeners) listener(document);
  }

  private cancel(uri: string): void {
    const entry = this.entries.get(uri);
    if (entry?.timer !== undefined) {
      this.timers.clear(entry.timer);
      entry.timer = undefined;
    }
  }
}
