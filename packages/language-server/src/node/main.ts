/**
 * @eql/language-server/node: the language server as a Node process, the entry of the
 * `eql-language-server` command: `runServer(argv)` starts it on stdio, node IPC or a socket.
 *
 * @packageDocumentation
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node.js';
import { createEqlServices } from '../services.js';
import { startServer } from '../server/start-server.js';

/** The help text of `eql-language-server`: printed for `--help`, and to stderr when no transport flag is given. */
export const USAGE = `usage: eql-language-server --stdio | --node-ipc | --socket=PORT

The EQL language server (LSP). Start it from an editor's LSP client, for example in Neovim:
  vim.lsp.start({ name = 'eql', cmd = { 'eql-language-server', '--stdio' } })
`;

/**
 * Starts the server on the transport named in `argv` (`--stdio`, `--node-ipc`, `--socket=N` or `--pipe=NAME`).
 * Returns true when it started; false after printing the version or USAGE (`--help`; with no transport,
 * USAGE goes to stderr and the exit code is 2).
 */
export function runServer(argv: readonly string[] = process.argv.slice(2)): boolean {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return false;
  }
  if (argv.includes('--version')) {
    process.stdout.write('0.1.0\n');
    return false;
  }
  if (!argv.some((arg) => arg === '--stdio' || arg === '--node-ipc' || arg.startsWith('--socket=') || arg.startsWith('--pipe='))) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return false;
  }
  // createConnection reads the transport from process.argv.
  const connection = createConnection(ProposedFeatures.all);
  startServer(connection, createEqlServices());
  return true;
}
