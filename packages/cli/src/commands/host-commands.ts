import { type Command, Option } from 'commander';
import type { CliIo } from '../io.js';

/**
 * `eql serve`, `eql config print`, `eql keys create`, `eql keys rotate-webhook-secret`, `eql ingest` and `eql bus publish`: the commands of the HTTP host. Each loads the host
 * (Fastify, SQLite, ...) when it runs, so the language commands (`validate`, `fmt`, ...) start without it.
 */
/** The options of a command on a host's data directory: where it is, `--force` when it may replace files, `--json`. */
function onDataDir(command: Command, force: string | undefined, json: string): Command {
  command.option('--data-dir <dir>', 'directory of the host data (default EQL_DATA_DIR)');
  if (force !== undefined) command.option('--force', force, false);
  return command.option('--json', json, false);
}

export function registerHostCommands(eql: Command, io: CliIo, exit: { code: number }): void {
  eql
    .command('serve')
    .description('run the HTTP host (defaults from EQL_PORT, EQL_HOST, EQL_DATA_DIR)')
    .option('--port <port>', 'port to listen on')
    .option('--host <host>', 'address to listen on')
    .option('--data-dir <dir>', 'directory of the database and secret key')
    .option('--x402-demo', 'serve the keyless payment routes (/x402) to a demo payee: verified locally, never settled (as EQL_X402_DEMO=1)')
    .action(async (flags: { port?: string; host?: string; dataDir?: string; x402Demo?: boolean }) => {
      const { serveCommand } = await import('./serve.js');
      exit.code = await serveCommand(flags, io);
    });

  eql
    .command('ingest')
    .description('add market data (posts, news, Telegram messages, accounts) from a JSON Lines file to the host, all or nothing')
    .argument('<file>', 'JSON Lines file (schemas/ingest.schema.json; recording lines of posts and news too)')
    .option('--data-dir <dir>', 'directory of the host data (default EQL_DATA_DIR)')
    .option('--json', 'print the result as JSON', false)
    .action(async (file: string, flags: { json: boolean; dataDir?: string }) => {
      const { ingestCommand } = await import('./ingest.js');
      exit.code = await ingestCommand(file, flags, io);
    });

  eql
    .command('config')
    .description("the host's configuration (docs/configuration.md)")
    .command('print')
    .description('print the effective configuration of this environment: every EQL_* setting with its value (secrets masked) and where it came from; checks it as `eql serve` would')
    .option('--json', 'print it as JSON', false)
    .action(async (flags: { json: boolean }) => {
      const { configPrintCommand } = await import('./config.js');
      exit.code = configPrintCommand(flags, io, process.env);
    });

  const admin = eql.command('admin').description("back up and restore a host's data (docs/operations.md, \"Backups\")");
  const backup = admin
    .command('backup')
    .description("copy the SQLite host's store (consistent while it runs), market data and secret key")
    .requiredOption('--to <file>', 'the store copy; the market data and the secret key go beside it (<file>.market.sqlite, <file>.secret.key)');
  onDataDir(backup, 'replace files already there', 'print the outcome as JSON')
    .action(async (flags: { to: string; dataDir?: string; force: boolean; json: boolean }) => {
      const { adminBackupCommand } = await import('./admin.js');
      exit.code = adminBackupCommand(flags, io);
    });
  const restore = admin
    .command('restore')
    .description('put a backup in place (stop the host first): checked, migrated, proven to open with its secret key')
    .requiredOption('--from <file>', 'a backup of eql admin backup');
  onDataDir(restore, 'replace a store already there (its files are set aside, not deleted)', 'print the outcome as JSON')
    .action(async (flags: { from: string; dataDir?: string; force: boolean; json: boolean }) => {
      const { adminRestoreCommand } = await import('./admin.js');
      exit.code = adminRestoreCommand(flags, io);
    });

  const migrate = eql.command('migrate').description('the schema migrations of the store (SQLite in EQL_DATA_DIR, or EQL_DATABASE_URL): before a rollout');
  for (const action of ['status', 'up'] as const) {
    const step = migrate
      .command(action)
      .description(action === 'status' ? 'list the migrations, applied and pending' : 'apply the pending migrations (a host does it at start; this does it before a rollout)');
    onDataDir(step, undefined, 'print it as JSON')
      .action(async (flags: { dataDir?: string; json: boolean }) => {
        const { migrateCommand } = await import('./admin.js');
        exit.code = await migrateCommand(action, flags, io);
      });
  }

  const bus = eql.command('bus').description("the cluster's market bus on NATS JetStream (docs/scale-out.md)");
  bus
    .command('publish')
    .description('publish a recording (JSON Lines) into the market bus, each observation once, for hosts with EQL_FEED=bus')
    .argument('<recording>', 'a recording: JSON Lines of price ticks, posts and news (llm lines are not carried)')
    .option('--nats <url>', 'NATS server (default EQL_NATS_URL)')
    .option('--stream <name>', 'JetStream stream (default EQL_NATS_STREAM, else EQL_MARKET)')
    .option('--speed <n>', 'play from now at n times real time, or max: at once (stamped as at speed 1)', '1')
    .option('--keep-times', 'publish the recorded instants as they are; running it again publishes nothing twice', false)
    .option('--json', 'print the outcome as JSON', false)
    .action(async (file: string, flags: { nats?: string; stream?: string; speed: string; keepTimes: boolean; json: boolean }) => {
      const { busPublishCommand } = await import('./bus.js');
      exit.code = await busPublishCommand(file, flags, io);
    });

  bus
    .command('status')
    .description("the cluster on the bus: the stream's last message, the hosts, the feed's leader, each partition's host and how far behind it is")
    .option('--nats <url>', 'NATS server (default EQL_NATS_URL)')
    .option('--stream <name>', 'JetStream stream (default EQL_NATS_STREAM, else EQL_MARKET)')
    .option('--json', 'print the status as JSON', false)
    .action(async (flags: { nats?: string; stream?: string; json: boolean }) => {
      const { busStatusCommand } = await import('./bus.js');
      exit.code = await busStatusCommand(flags, io);
    });

  const keys = eql.command('keys').description('manage API keys of the host');
  keys
    .command('create')
    .description('create an API key and print it with its HMAC secret and webhook signing secret, once')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .addOption(new Option('--plan <plan>', 'plan of the key: free, pro, or a plan of EQL_PLANS_FILE').default('free'))
    .addOption(new Option('--scope <scope...>', 'extra permissions: ingest (write market data through POST /v2/ingest)').choices(['ingest']))
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the key as JSON', false)
    .action(async (flags: { name: string; plan: string; json: boolean; dataDir?: string; scope?: Array<'ingest'> }) => {
      const { keysCreateCommand } = await import('./keys.js');
      exit.code = await keysCreateCommand(flags, io);
    });
  keys
    .command('list')
    .description("list the host's keys: id, name, the start of the key, plan, status, scopes (never a key or a secret)")
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the keys as JSON', false)
    .action(async (flags: { json: boolean; dataDir?: string }) => {
      const { keysListCommand } = await import('./keys.js');
      exit.code = await keysListCommand(flags, io);
    });
  keys
    .command('revoke')
    .description('disable a key: its requests are refused from now on (its queries stay stored)')
    .requiredOption('--id <id>', 'the number of the key (eql keys list shows them)')
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the outcome as JSON', false)
    .action(async (flags: { id: string; json: boolean; dataDir?: string }) => {
      const { keysRevokeCommand } = await import('./keys.js');
      exit.code = await keysRevokeCommand(flags, io);
    });
  keys
    .command('rotate')
    .description('give a key a new value, printed once (same id: its queries stay its own); the old value stops at once')
    .requiredOption('--id <id>', 'the number of the key (eql keys list shows them)')
    .option('--hmac-secret', 'give it a new HMAC secret too', false)
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the new key as JSON', false)
    .action(async (flags: { id: string; hmacSecret: boolean; json: boolean; dataDir?: string }) => {
      const { keysRotateCommand } = await import('./keys.js');
      exit.code = await keysRotateCommand(flags, io);
    });
  keys
    .command('rotate-webhook-secret')
    .description('give a key a new webhook signing secret and print it, once; the previous one signs too for a grace period')
    .requiredOption('--id <id>', 'the number of the key (eql keys create prints it)')
    .option('--grace <seconds>', 'how long the previous secret signs too, 0 to 604800 (default 86400)')
    .option('--data-dir <dir>', 'directory of the database and secret key (default EQL_DATA_DIR)')
    .option('--json', 'print the new secret as JSON', false)
    .action(async (flags: { id: string; grace?: string; json: boolean; dataDir?: string }) => {
      const { keysRotateWebhookSecretCommand } = await import('./keys.js');
      exit.code = await keysRotateWebhookSecretCommand(flags, io);
    });
}
