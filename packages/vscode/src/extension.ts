import * as path from 'node:path';
import { type ExtensionContext, window, workspace } from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node.js';

let client: LanguageClient | undefined;

/** The settings the server reads (the `eql` section), as plain JSON for `initializationOptions`. */
function settings(): unknown {
  const config = workspace.getConfiguration('eql');
  return {
    symbols: config.get<string[]>('symbols'),
    validation: { debounceMs: config.get<number>('validation.debounceMs'), mode: config.get<string>('validation.mode'), served: config.get<unknown>('validation.served') },
    diagnostics: { docsUrl: config.get<string>('diagnostics.docsUrl') },
  };
}

/** Commands run from the palette get the active document; from a code lens or code action they carry it. */
function withDocument(args: unknown[]): unknown[] {
  const uri = window.activeTextEditor?.document.uri.toString();
  return args.length > 0 || uri === undefined ? args : [uri];
}

export async function activate(context: ExtensionContext): Promise<void> {
  const module = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { language: 'eql' },
      { language: 'eql-json' },
      { language: 'json', pattern: '**/*.eql.json' },
    ],
    initializationOptions: settings(),
    synchronize: { configurationSection: 'eql' },
    // The server's commands (eql.convertToJson, eql.convertToText, eql.estimate) are registered by
    // the client from the server's capabilities; from the palette they apply to the active document.
    middleware: { executeCommand: (command, args, next): unknown => next(command, withDocument(args)) },
  };
  client = new LanguageClient('eql', 'EQL Language Server', serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
