import { type ClientCapabilities, type Connection, type InitializeResult, MessageType, ShowMessageNotification, type WorkspaceEdit } from 'vscode-languageserver';
import { COMMANDS, type ConvertParams, type ConvertResult, type EstimateParams, type EstimateResult, REQUESTS } from '../lsp/commands.js';
import { callsLine, costOf, costTitle } from '../lsp/cost.js';
import { createEqlServices, type EqlServices } from '../services.js';
import type { DocumentForm } from '../workspace/document-form.js';
import { SERVER_CAPABILITIES } from './capabilities.js';

/** The server's name and version, as sent in its `initialize` response. */
export const SERVER_INFO = { name: 'eql-language-server', version: '0.1.0' } as const;

/**
 * Wires the services to an LSP connection and starts listening. Handlers only ask the document
 * manager for the state they need and hand it to a provider: nothing is parsed or validated here.
 */
export function startServer(connection: Connection, services: EqlServices = createEqlServices()): EqlServices {
  const { documents } = services;
  let client: ClientCapabilities = {};

  connection.onInitialize((params): InitializeResult => {
    client = params.capabilities;
    if (params.initializationOptions !== undefined && params.initializationOptions !== null) services.settings.update(params.initializationOptions);
    return { capabilities: SERVER_CAPABILITIES, serverInfo: SERVER_INFO };
  });
  connection.onDidChangeConfiguration((params) => {
    const before = services.settings.current;
    const after = services.settings.update(params.settings);
    // What the published diagnostics depend on: the validation mode and served data, and the page they link to.
    const changed =
      after.validation.mode !== before.validation.mode ||
      JSON.stringify(after.validation.served) !== JSON.stringify(before.validation.served) ||
      after.diagnostics.docsUrl !== before.diagnostics.docsUrl;
    if (changed) documents.revalidateAll();
  });

  documents.onValidated((document) => {
    void connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: services.diagnostics.diagnostics(document) });
  });
  connection.onDidOpenTextDocument(({ textDocument: doc }) => documents.open(doc.uri, doc.languageId, doc.version, doc.text));
  connection.onDidChangeTextDocument(({ textDocument: doc, contentChanges }) => documents.change(doc.uri, doc.version, contentChanges));
  connection.onDidCloseTextDocument(({ textDocument: doc }) => {
    documents.close(doc.uri);
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
  });

  connection.onCompletion(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri, 'parsed');
    return document === undefined ? [] : services.completion.complete(document, position);
  });
  connection.onHover(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri, 'validated');
    return document === undefined ? null : services.hover.hover(document, position);
  });
  connection.onCodeAction((params) => {
    const document = documents.get(params.textDocument.uri, 'validated');
    return document === undefined ? [] : services.codeActions.codeActions(document, params);
  });
  connection.onDocumentFormatting(({ textDocument, options }) => {
    const document = documents.get(textDocument.uri, 'parsed');
    if (document === undefined) return [];
    // Formatting a document that does not parse would guess at its layout: refused, and said (editors show nothing for no edits).
    const refusal = services.formatting.refusal(document);
    if (refusal !== undefined) {
      tell(connection, MessageType.Warning, refusal);
      return [];
    }
    return services.formatting.format(document, options);
  });
  connection.languages.semanticTokens.on(({ textDocument }) => {
    const document = documents.get(textDocument.uri, 'parsed');
    return document === undefined ? { data: [] } : services.semanticTokens.semanticTokens(document);
  });
  connection.onDocumentSymbol(({ textDocument }) => {
    const document = documents.get(textDocument.uri, 'parsed');
    return document === undefined ? [] : services.symbols.symbols(document);
  });
  connection.onCodeLens(({ textDocument }) => {
    const document = documents.get(textDocument.uri, 'validated');
    return document === undefined ? [] : services.codeLens.codeLenses(document);
  });

  const convert = ({ uri, to }: ConvertParams): ConvertResult | null => {
    const document = documents.get(uri, 'parsed');
    return document === undefined ? null : services.conversion.convert(document, to);
  };
  const estimate = ({ uri }: EstimateParams): EstimateResult => {
    const document = documents.get(uri, 'validated');
    return document === undefined ? null : (costOf(document) ?? null);
  };
  connection.onRequest(REQUESTS.convert, convert);
  connection.onRequest(REQUESTS.estimate, estimate);

  connection.onExecuteCommand(async ({ command, arguments: args }) => {
    const uri = typeof args?.[0] === 'string' ? args[0] : undefined;
    if (uri === undefined) {
      tell(connection, MessageType.Error, `${command}: no EQL document given`);
      return null;
    }
    if (command === COMMANDS.estimate) {
      const cost = estimate({ uri });
      if (cost === null) tell(connection, MessageType.Warning, 'EQL: no query to estimate in this document');
      else tell(connection, MessageType.Info, `EQL: estimated cost ${costTitle(cost).replace('≈ ', '')}. ${callsLine(cost.simulationLlmCallsEstimate)}`);
      return cost;
    }
    if (command === COMMANDS.convertToJson || command === COMMANDS.convertToText) {
      const to: DocumentForm = command === COMMANDS.convertToJson ? 'json' : 'text';
      const result = convert({ uri, to });
      if (result === null) return null;
      if (!result.ok) {
        tell(connection, MessageType.Error, `EQL: cannot convert: ${result.problems.join('; ')}`);
        return result;
      }
      await writeConverted(connection, client, services, result);
      return result;
    }
    return null;
  });

  connection.onShutdown(() => documents.dispose());
  connection.listen();
  return services;
}

/** Writes a conversion to its target: replaces the text of an open target, or creates the file (never over an existing one). */
async function writeConverted(connection: Connection, client: ClientCapabilities, services: EqlServices, result: Extract<ConvertResult, { ok: true }>): Promise<void> {
  const open = services.documents.get(result.targetUri, 'parsed');
  let edit: WorkspaceEdit;
  if (open !== undefined) {
    const end = open.textDocument.positionAt(open.textDocument.getText().length);
    edit = { changes: { [result.targetUri]: [{ range: { start: { line: 0, character: 0 }, end }, newText: result.text }] } };
  } else if (client.workspace?.workspaceEdit?.resourceOperations?.includes('create') === true) {
    edit = {
      documentChanges: [
        { kind: 'create', uri: result.targetUri, options: { overwrite: false, ignoreIfExists: false } },
        { textDocument: { uri: result.targetUri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: result.text }] },
      ],
    };
  } else {
    tell(connection, MessageType.Warning, 'EQL: the client cannot create files; use the eql/convert request instead');
    return;
  }
  const applied = await connection.workspace.applyEdit({ label: `Convert to ${result.to === 'json' ? 'JSON' : 'the text form'}`, edit });
  if (!applied.applied) {
    tell(connection, MessageType.Warning, `EQL: could not write ${result.targetUri}${applied.failureReason ? `: ${applied.failureReason}` : ' (does it exist already?)'}`);
    return;
  }
  if (open === undefined && client.window?.showDocument?.support === true) await connection.window.showDocument({ uri: result.targetUri, takeFocus: true });
}

/** A message for the user (`window/showMessage`: a notification, so nothing waits for an answer). */
function tell(connection: Connection, type: MessageType, message: string): void {
  void connection.sendNotification(ShowMessageNotification.type, { type, message });
}
