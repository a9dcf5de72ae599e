import { CodeActionKind, type ServerCapabilities, TextDocumentSyncKind } from 'vscode-languageserver';
import { COMMANDS } from '../lsp/commands.js';

export const SERVER_CAPABILITIES: ServerCapabilities = {
  textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
  completionProvider: { triggerCharacters: [' ', '(', ',', '"', ':'] },
  hoverProvider: true,
  codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.RefactorRewrite] },
  documentFormattingProvider: true,
  documentSymbolProvider: true,
  codeLensProvider: { resolveProvider: false },
  executeCommandProvider: { commands: Object.values(COMMANDS) },
};
