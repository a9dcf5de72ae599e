import { Command, CommanderError, Option } from 'commander';
import type { RecordFlags } from './commands/record.js';
import { registerHostCommands } from './commands/host-commands.js';
import { registerRemoteCommands } from './commands/remote.js';
import { type CliIo, processIo, UnusableInput } from './io.js';
import { terminalText } from './terminal-text.js';

const VERSION = '0.1.0';

const FILE_HELP = 'the request as JSON or in the text form, or - for standard input';

const modeOption = () =>
  new Option('--mode <mode>', 'access model the query is checked for').choices(['api-key', 'payment']).default('api-key');

/**
 * Builds the `eql` program around an IO; the exit code of the command run lands in `exit`. Each command's
 * module is loaded when it runs: `eql --version` or `--help` loads neither the language nor the host.
 */
function program(io: CliIo, exit: { code: number }, env: NodeJS.ProcessEnv): Command {
  const eql = new Command('eql')
    .description('Write, check and run EQL conditional market queries')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run eql --help for usage)');

  eql
    .command('validate')
    .description('check query requests (spec 2.1) and print the result of spec 2.4 for each; several files or globs end with a summary')
    .argument('<files...>', `${FILE_HELP}; or several files and globs ('queries/**/*.eql')`)
    .addOption(modeOption())
    .option('--json', 'print the validation result as JSON, with diagnostics', false)
    .option('--served <symbols>', 'symbols the target host serves (BTC,ETH,SOL): others are errors')
    .option('--no-history', 'the target host has no past prices: a look-back longer than the query lives is an error')
    .option('--data <recording>', 'serve what this recording has prices of (as eql preview does)')
    .option('--max-warnings <n>', 'exit 1 when the files have more than n warnings in all (for CI)')
    .option('--strict', 'exit 1 on any warning: --max-warnings 0', false)
    .addHelpText('after', "\nExamples:\n  eql validate rule.eql\n  eql validate 'queries/**/*.eql' --strict          # in CI: warnings fail too\n  eql validate rule.json --served BTC,ETH --no-history  # against what a host serves\n")
    .action(async (files: string[], flags: { mode: 'api-key' | 'payment'; json: boolean; served?: string; history: boolean; data?: string; maxWarnings?: string; strict: boolean }) => {
      const { validateFilesCommand } = await import('./commands/validate.js');
      exit.code = await validateFilesCommand(files, flags, io);
    });

  eql
    .command('estimate')
    .description('print the LLM call bounds and the cost in credits and USD')
    .argument('<file>', FILE_HELP)
    .addOption(modeOption())
    .option('--json', 'print {simulationLlmCallsEstimate, estimatedCost} as JSON', false)
    .action(async (file: string, flags: { mode: 'api-key' | 'payment'; json: boolean }) => {
      const { estimateCommand } = await import('./commands/estimate.js');
      exit.code = await estimateCommand(file, flags, io);
    });

  eql
    .command('preview')
    .description('replay a recording against a query in virtual time: when it fires, its timeline, its actions (dry run), its orders traded on paper')
    .argument('<file>', FILE_HELP)
    .option('--data <recording>', 'recording of observations (JSON Lines); default the sample recording the host replays')
    .option('--from <time>', 'start of the replay (ISO 8601 or epoch ms), default the recording start; what comes before is history')
    .option('--to <time>', 'end of the replay (ISO 8601 or epoch ms), default the recording end')
    .option('--fee <percent>', 'order steps trade on paper: fee per fill, in percent of its notional (0.05 is 5 bp); default 0')
    .option('--slippage <percent>', 'market orders and exits fill this percent worse than the replayed price; default 0')
    .option('--deposit <usd>', 'the paper account order steps trade in, in USD; default 10000')
    .option('--renew', 'create the query again each time it expires, so a run longer than its expiresIn (at most 30d) trades to the end', false)
    .option('--json', 'print the preview result as JSON', false)
    .action(async (file: string, flags: { data?: string; json: boolean; from?: string; to?: string; fee?: string; slippage?: string; deposit?: string; renew: boolean }) => {
      const { previewCommand } = await import('./commands/preview.js');
      exit.code = await previewCommand(file, flags, io);
    });

  eql
    .command('record')
    .description("write a recording of a venue's candles through ccxt, for eql preview --data (resumes a file it wrote before)")
    .requiredOption('--venue <id>', 'a ccxt exchange id: binanceusdm, bybit, okx, hyperliquid, ...')
    .requiredOption('--symbols <list>', 'symbols as queries name them, comma-separated: BTC,ETH')
    .option('--timeframe <tf>', 'candle timeframe, 1m to 1d', '1m')
    .requiredOption('--from <time>', 'first candle (ISO 8601 or epoch ms)')
    .option('--to <time>', 'end, exclusive (ISO 8601 or epoch ms); default the last closed candle')
    .requiredOption('-o, --output <file>', 'the recording to write (JSON Lines); an existing one is continued')
    .addHelpText('after', '\nExample:\n  eql record --venue binanceusdm --symbols BTC,ETH --timeframe 1m --from 2026-01-01T00:00:00Z --to 2026-02-01T00:00:00Z -o market.jsonl\n  eql preview rule.eql --data market.jsonl --fee 0.05\n')
    .action(async (flags: RecordFlags) => {
      const { recordCommand } = await import('./commands/record.js');
      exit.code = await recordCommand(flags, io);
    });

  eql
    .command('sign')
    .description("sign a request of the Auto API (spec 5.2): print its x-svc-timestamp and x-svc-signature headers and a curl line that sends it")
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'the path as sent, /v2/auto/...')
    .option('--body <body>', 'the body exactly as it will be sent: @file, - for standard input, or the text')
    .option('--secret <secret>', "the key's HMAC secret (default EQL_HMAC_SECRET; a flag shows in your shell history)")
    .option('--host <url>', 'the host of the curl line (default EQL_URL, else http://localhost:8787)')
    .option('--timestamp <seconds>', 'Unix time to sign at (default now)')
    .option('--json', 'print {headers, signed, curl} as JSON', false)
    .action(async (method: string, path: string, flags: { body?: string; secret?: string; host?: string; timestamp?: string; json: boolean }) => {
      const { signCommand } = await import('./commands/sign.js');
      exit.code = await signCommand(method, path, flags, io);
    });

  registerHostCommands(eql, io, exit);
  registerRemoteCommands(eql, io, exit, env);

  eql
    .command('fmt')
    .description('print a query in the text form in its canonical layout (comments kept)')
    .argument('<file>', 'a query in the text form, or - for standard input')
    .addOption(new Option('--write', 'write the formatted text back to the file').default(false).conflicts('check'))
    .addOption(new Option('--check', 'only check: exit 1 when the file is not formatted').default(false))
    .action(async (file: string, flags: { write: boolean; check: boolean }) => {
      const { fmtCommand } = await import('./commands/fmt.js');
      exit.code = await fmtCommand(file, flags, io);
    });

  eql
    .command('convert')
    .description('convert a query between JSON and the text form (the input is JSON when it parses as JSON; by default it becomes the other form)')
    .argument('<file>', FILE_HELP)
    .addOption(new Option('--to <format>', 'the format to write (default: the other form than the input)').choices(['json', 'text']))
    .action(async (file: string, flags: { to?: 'json' | 'text' }) => {
      const { convertCommand } = await import('./commands/convert.js');
      exit.code = await convertCommand(file, flags, io);
    });

  eql
    .command('completion')
    .description('print a shell completion script: eql completion bash > ~/.local/share/bash-completion/completions/eql')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      const { completionCommand } = await import('./commands/completion.js');
      exit.code = completionCommand(shell, eql, io);
    });

  return eql;
}

/**
 * Runs `eql` with the given arguments and returns the exit code: 0 success (valid), 1 invalid,
 * 2 unusable input or bad usage.
 */
export async function main(argv: readonly string[], io: CliIo = processIo(), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const exit = { code: 0 };
  try {
    await program(io, exit, env).parseAsync([...argv], { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof UnusableInput) {
      io.stderr(`eql: ${terminalText(error.message)}\n`);
      return 2;
    }
    if (error instanceof CommanderError) {
      // Help and version are successes; usage errors were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    io.stderr(`eql: unexpected failure: ${terminalText(error instanceof Error ? (error.stack ?? error.message) : String(error), { lines: true })}\n`);
    return 70;
  }
}
