import { type CodeActionProvider, DefaultCodeActionProvider } from './lsp/code-action-provider.js';
import { type CodeLensProvider, DefaultCodeLensProvider } from './lsp/code-lens-provider.js';
import { type CompletionProvider, DefaultCompletionProvider } from './lsp/completion-provider.js';
import { type ConversionProvider, DefaultConversionProvider } from './lsp/conversion-provider.js';
import { DefaultDiagnosticProvider, type DiagnosticProvider } from './lsp/diagnostic-provider.js';
import { DefaultDocumentSymbolProvider, type DocumentSymbolProvider } from './lsp/document-symbol-provider.js';
import { DefaultFormattingProvider, type FormattingProvider } from './lsp/formatting-provider.js';
import { DefaultHoverProvider, type HoverProvider } from './lsp/hover-provider.js';
import { DefaultSemanticTokensProvider, type SemanticTokensProvider } from './lsp/semantic-tokens-provider.js';
import { DefaultSchemaModel, type SchemaModel } from './schema/schema-model.js';
import { SettingsStore } from './settings.js';
import { DefaultDocumentManager, type DocumentManager, type Timers } from './workspace/document-manager.js';
import { DefaultDocumentParser, type DocumentParser } from './workspace/document-parser.js';
import { DefaultDocumentValidator, type DocumentValidator } from './workspace/document-validator.js';

/** Every service of the language server. Features depend on interfaces; the defaults are below. */
export interface EqlServices {
  settings: SettingsStore;
  schema: SchemaModel;
  parser: DocumentParser;
  validator: DocumentValidator;
  documents: DocumentManager;
  diagnostics: DiagnosticProvider;
  completion: CompletionProvider;
  hover: HoverProvider;
  codeActions: CodeActionProvider;
  formatting: FormattingProvider;
  symbols: DocumentSymbolProvider;
  codeLens: CodeLensProvider;
  conversion: ConversionProvider;
  semanticTokens: SemanticTokensProvider;
}

/** Replacements for default services: each gets the services built before it (in the order of `EqlServices`). */
export type EqlServiceOverrides = { [K in keyof EqlServices]?: (services: Partial<EqlServices>) => EqlServices[K] };

/**
 * Options of {@link createEqlServices}: initial settings, the clock, the debounce timers and replacements for
 * default services.
 */
export interface EqlServiceOptions {
  /** Initial settings (the shape of `initializationOptions` or the `eql` settings section). */
  settings?: unknown;
  /** The clock the validator judges cron instants by. */
  now?: () => number;
  /** Timers of the validation debounce. */
  timers?: Timers;
  overrides?: EqlServiceOverrides;
}

/** Builds the services, wiring each default to the interfaces it needs. */
export function createEqlServices(options: EqlServiceOptions = {}): EqlServices {
  const built: Partial<EqlServices> = {};
  const o = options.overrides ?? {};
  const make = <K extends keyof EqlServices>(key: K, fallback: () => EqlServices[K]): EqlServices[K] => {
    const override = o[key];
    const service = override === undefined ? fallback() : override(built);
    built[key] = service;
    return service;
  };
  const settings = make('settings', () => new SettingsStore(options.settings));
  const schema = make('schema', () => new DefaultSchemaModel());
  const parser = make('parser', () => new DefaultDocumentParser());
  const validator = make('validator', () => new DefaultDocumentValidator(settings, options.now));
  const documents = make('documents', () => new DefaultDocumentManager(parser, validator, settings, options.timers));
  const diagnostics = make('diagnostics', () => new DefaultDiagnosticProvider(settings));
  const completion = make('completion', () => new DefaultCompletionProvider(schema, settings));
  const hover = make('hover', () => new DefaultHoverProvider(schema));
  const codeActions = make('codeActions', () => new DefaultCodeActionProvider(diagnostics));
  const formatting = make('formatting', () => new DefaultFormattingProvider());
  const symbols = make('symbols', () => new DefaultDocumentSymbolProvider());
  const codeLens = make('codeLens', () => new DefaultCodeLensProvider());
  const conversion = make('conversion', () => new DefaultConversionProvider());
  const semanticTokens = make('semanticTokens', () => new DefaultSemanticTokensProvider());
  return { settings, schema, parser, validator, documents, diagnostics, completion, hover, codeActions, formatting, symbols, codeLens, conversion, semanticTokens };
}
