/**
 * @eql/language-server: the EQL language server. `createEqlServices()` builds the services (each an
 * interface with a `Default*` class), `startServer(connection)` wires them to an LSP connection, and
 * the bin `eql-language-server --stdio` (or `--node-ipc`) runs them for any LSP client.
 *
 * @packageDocumentation
 */
export { createEqlServices, type EqlServiceOptions, type EqlServiceOverrides, type EqlServices } from './services.js';
export { startServer, SERVER_INFO } from './server/start-server.js';
export { SERVER_CAPABILITIES } from './server/capabilities.js';
export { DEFAULT_SETTINGS, DIAGNOSTICS_DOCS_URL, readSettings, SettingsStore, type EqlSettings } from './settings.js';
export { COMMANDS, REQUESTS, type ConvertParams, type ConvertResult, type EstimateParams, type EstimateResult } from './lsp/commands.js';
export type { CostSummary } from './lsp/cost.js';
export { DefaultDocumentManager, REAL_TIMERS, type DocumentManager, type Timers } from './workspace/document-manager.js';
export { DefaultDocumentParser, type DocumentParser } from './workspace/document-parser.js';
export { DefaultDocumentValidator, type DocumentValidator } from './workspace/document-validator.js';
export type { DocumentState, ParseOutcome, ParsedDocument, ValidatedDocument } from './workspace/eql-document.js';
export { convertedUri, formOf, LANGUAGE_IDS, type DocumentForm } from './workspace/document-form.js';
export { DefaultSchemaModel, type SchemaModel, type PropertyInfo, type ChoiceInfo } from './schema/schema-model.js';
export { codeDescriptionOf, DefaultDiagnosticProvider, DIAGNOSTIC_SOURCE, SYNTAX_CODE, type DiagnosticProvider } from './lsp/diagnostic-provider.js';
export { DefaultCompletionProvider, type CompletionProvider } from './lsp/completion-provider.js';
export { DefaultHoverProvider, type HoverProvider } from './lsp/hover-provider.js';
export { DefaultCodeActionProvider, type CodeActionProvider } from './lsp/code-action-provider.js';
export { DefaultFormattingProvider, type FormattingProvider } from './lsp/formatting-provider.js';
export { DefaultDocumentSymbolProvider, type DocumentSymbolProvider } from './lsp/document-symbol-provider.js';
export { DefaultCodeLensProvider, type CodeLensProvider } from './lsp/code-lens-provider.js';
export { DefaultConversionProvider, type ConversionProvider } from './lsp/conversion-provider.js';
export { DefaultSemanticTokensProvider, SEMANTIC_TOKENS_LEGEND, type SemanticTokensProvider } from './lsp/semantic-tokens-provider.js';
