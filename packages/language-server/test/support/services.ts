import { createEqlServices, type EqlServices, type ParsedDocument, type Timers, type ValidatedDocument } from '../../src/index.js';
import { withCursor } from './lsp-client.js';

/** Timers that fire only when the test says so. */
export class ManualTimers implements Timers {
  private next = 1;
  readonly pending = new Map<number, { callback: () => void; ms: number }>();

  set(callback: () => void, ms: number): unknown {
    const handle = this.next++;
    this.pending.set(handle, { callback, ms });
    return handle;
  }

  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  runAll(): void {
    const due = [...this.pending.values()];
    this.pending.clear();
    for (const { callback } of due) callback();
  }
}

let counter = 0;

/** Services with a document opened from text (form by URI suffix). */
export function openDocument(text: string, options: { json?: boolean; services?: EqlServices } = {}): { services: EqlServices; uri: string; parsed: () => ParsedDocument; validated: () => ValidatedDocument } {
  const services = options.services ?? createEqlServices();
  counter += 1;
  const uri = `file:///t/doc${counter}${options.json === true ? '.eql.json' : '.eql'}`;
  services.documents.open(uri, options.json === true ? 'eql-json' : 'eql', 1, text);
  return {
    services,
    uri,
    parsed: () => services.documents.get(uri, 'parsed') as ParsedDocument,
    validated: () => services.documents.get(uri, 'validated') as ValidatedDocument,
  };
}

/** The completion labels at the `|` of a marked text. */
export function completionLabels(marked: string, options: { json?: boolean; services?: EqlServices } = {}): string[] {
  const { text, position } = withCursor(marked);
  const { services, parsed } = openDocument(text, options);
  return services.completion.complete(parsed(), position).map((item) => item.label);
}
