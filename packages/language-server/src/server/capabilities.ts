import { CodeActionKind, type ServerCapabilities, TextDocumentSyncKind } from 'vscode-languageserver';
import { COMMANDS } from '../lsp/commands.js';
import { SEMANTIC_TOKENS_LEGEND } from '../lsp/semantic-tokens-provider.js';

/**
 * What the server tells clients it can do in its `initialize` response: incremental sync, completion, hover,
 * quick fixes and conversions, formatting, symbols, code lenses, semantic tokens of the text form and its commands.
 */
export const SERVER_CAPABILITIES: ServerCapabilities = {
  textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
  completionProvider: { triggerCharacters: [' ', '(', ',', '"', ':'] },
  hoverProvider: true,
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
  documentFormattingProvider: true,
  documentSymbolProvider: true,
  codeLensProvider: { resolveProvider: false },
  executeCommandProvider: { commands: Object.values(COMMANDS) },
  semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true },
};
