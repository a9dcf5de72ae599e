// `eql remote …` registered: the commands and their options; what they run is remote-run.ts, loaded when one runs.
import { type Command, Option } from 'commander';
import type { EqlClient } from '@eql/client';
import type { CliIo } from '../io.js';
import type * as RemoteRuns from './remote-run.js';
import type { RemoteFlags } from './remote-run.js';

export type { RemoteFlags } from './remote-run.js';

/** Registers `eql remote` and its commands. */
export function registerRemoteCommands(eql: Command, io: CliIo, exit: { code: number }, env: NodeJS.ProcessEnv = process.env): void {
  const group = eql
    .command('remote')
    .description("a host's queries through its HTTP API (--host or EQL_URL; EQL_API_KEY; EQL_HMAC_SECRET signs what spec 5.2 signs)")
    .addOption(new Option('--host <url>', 'the host (default EQL_URL, else http://localhost:8787)'))
    .addOption(new Option('--api-key <key>', 'the API key (default EQL_API_KEY; a flag shows in your shell history)'))
    // `eql remote list --help` shows --host and --api-key too: they are written before the subcommand but read by it.
    .configureHelp({ showGlobalOptions: true });
  const flagsOf = (command: Command): RemoteFlags => ({ ...(group.opts<{ host?: string; apiKey?: string }>()), json: command.opts<{ json?: boolean }>().json === true });
  const json = () => new Option('--json', "print the host's answer as JSON").default(false);
  // The commands' code (the client, the language for create) is loaded when one runs, not at every `eql`.
  type Runs = typeof RemoteRuns;
  const action =
    <Args extends unknown[]>(run: (runs: Runs, client: EqlClient, command: Command, ...args: Args) => Promise<number>) =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const runs = await import('./remote-run.js');
      exit.code = await runs.remote(io, flagsOf(command), env, (client) => run(runs, client, command, ...(args.slice(0, -2) as Args)));
    };

  group.command('ping').description('check that the host answers').addOption(json())
    .action(action((runs, client, command) => runs.pingRemote(client, flagsOf(command), io)));
  group.command('validate').description('validate a query request on the host (JSON or the text form)').argument('<file>', 'the request, or - for standard input').addOption(json())
    .action(action((runs, client, command, file: string) => runs.createRemote(client, file, { ...flagsOf(command), validateOnly: true, signing: Boolean(env.EQL_HMAC_SECRET) }, io)));
  group.command('create').description('create a query: the trade preflight when it trades, validate, then create (signed when it trades)').argument('<file>', 'the request, or - for standard input').addOption(json())
    .action(action((runs, client, command, file: string) => runs.createRemote(client, file, { ...flagsOf(command), signing: Boolean(env.EQL_HMAC_SECRET) }, io)));
  group.command('get').alias('poll').description("a query's status, credits, latest evaluation and executions").argument('<queryId>').addOption(json())
    .action(action((runs, client, command, queryId: string) => runs.getRemote(client, queryId, flagsOf(command), io)));
  group.command('list').description("the key's queries").addOption(new Option('--status <status>', 'only queries with this status')).addOption(new Option('--limit <n>', 'at most n')).addOption(json())
    .action(action((runs, client, command) => runs.listRemote(client, command.opts<{ status?: string; limit?: string }>(), flagsOf(command), io)));
  group.command('cancel').description('cancel a query (signed when it trades)').argument('<queryId>').addOption(json())
    .action(action((runs, client, command, queryId: string) => runs.cancelRemote(client, queryId, flagsOf(command), io)));
  group.command('delete').description('delete a query and its history (signed when it trades)').argument('<queryId>').addOption(json())
    .action(action((runs, client, command, queryId: string) => runs.deleteRemote(client, queryId, flagsOf(command), io)));
  group.command('executions').description("the key's executions (actions run), newest first").addOption(new Option('--query <queryId>', "only this query's")).addOption(json())
    .action(action((runs, client, command) => runs.executionsRemote(client, command.opts<{ query?: string }>().query, flagsOf(command), io)));
  group.command('watch').description('print notifications as they come (all queries, or one), resuming after disconnects; Ctrl-C stops').argument('[queryId]')
    .addOption(new Option('--from <id>', 'resume after this notification id (Last-Event-ID)')).addOption(new Option('--count <n>', 'stop after n notifications')).addOption(new Option('--json', 'print every event as a JSON line').default(false))
    .action(action((runs, client, command, queryId: string | undefined) => runs.watchRemote(client, queryId, { ...flagsOf(command), ...command.opts<{ from?: string; count?: string }>() }, io)));
}
