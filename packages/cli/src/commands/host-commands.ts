import { type Command, Option } from 'commander';
import type { CliIo } from '../io.js';
import { keysCreateCommand } from './keys.js';
import { serveCommand } from './serve.js';

/** `eql serve` and `eql keys create`: the commands of the HTTP host. */
export function registerHostCommands(eql: Command, io: CliIo, exit: { code: number }): void {
  eql
    .command('serve')
    .description('run the HTTP host (defaults from EQL_PORT, EQL_HOST, EQL_DATA_DIR)')
    .option('--port <port>', 'port to listen on')
    .option('--host <host>', 'address to listen on')
    .option('--data-dir <dir>', 'directory of the database and secret key')
    .action(async (flags: { port?: string; host?: string; dataDir?: string }) => {
      exit.code = await serveCommand(flags, io);
    });

  const keys = eql.command('keys').description('manage API keys of the host');
  keys
    .command('create')
    .description('create an API key and print it with its HMAC secret, once')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .addOption(new Option('--plan <plan>', 'plan of the key').choices(['free', 'pro']).default('free'))
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the key as JSON', false)
    .action(async (flags: { name: string; plan: 'free' | 'pro'; json: boolean; dataDir?: string }) => {
      exit.code = await keysCreateCommand(flags, io);
    });
}
