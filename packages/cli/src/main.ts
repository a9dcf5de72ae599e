import { Command, CommanderError, Option } from 'commander';
import { estimateCommand } from './commands/estimate.js';
import { previewCommand } from './commands/preview.js';
import { registerHostCommands } from './commands/host-commands.js';
import { validateCommand } from './commands/validate.js';
import { type CliIo, processIo, UnusableInput } from './io.js';

const VERSION = '0.1.0';

const modeOption = () =>
  new Option('--mode <mode>', 'access model the query is checked for').choices(['api-key', 'payment']).default('api-key');

/** Builds the `eql` program around an IO; the exit code of the command run lands in `exit`. */
function program(io: CliIo, exit: { code: number }): Command {
  const eql = new Command('eql')
    .description('Write, check and run EQL conditional market queries')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run eql --help for usage)');

  eql
    .command('validate')
    .description('check a query request (spec 2.1) and print the result of spec 2.4')
    .argument('<file>', 'JSON file with the request, or - for standard input')
    .addOption(modeOption())
    .option('--json', 'print the validation result as JSON, with diagnostics', false)
    .action(async (file: string, flags: { mode: 'api-key' | 'payment'; json: boolean }) => {
      exit.code = await validateCommand(file, flags, io);
    });

  eql
    .command('estimate')
    .description('print the LLM call bounds and the cost in credits and USD')
    .argument('<file>', 'JSON file with the request, or - for standard input')
    .addOption(modeOption())
    .option('--json', 'print {simulationLlmCallsEstimate, estimatedCost} as JSON', false)
    .action(async (file: string, flags: { mode: 'api-key' | 'payment'; json: boolean }) => {
      exit.code = await estimateCommand(file, flags, io);
    });

  eql
    .command('preview')
    .description('replay a recording against a query in virtual time: when it fires, its timeline, its actions (dry run)')
    .argument('<file>', 'JSON file with the request, or - for standard input')
    .requiredOption('--data <recording>', 'recording of observations (JSON Lines)')
    .option('--from <time>', 'start of the replay (ISO 8601), default the recording start')
    .option('--to <time>', 'end of the replay (ISO 8601), default the recording end')
    .option('--json', 'print the preview result as JSON', false)
    .action(async (file: string, flags: { data: string; json: boolean; from?: string; to?: string }) => {
      exit.code = await previewCommand(file, flags, io);
    });

  registerHostCommands(eql, io, exit);

  return eql;
}

/**
 * Runs `eql` with the given arguments and returns the exit code: 0 success (valid), 1 invalid,
 * 2 unusable input or bad usage.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const exit = { code: 0 };
  try {
    await program(io, exit).parseAsync([...argv], { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof UnusableInput) {
      io.stderr(`eql: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CommanderError) {
      // Help and version are successes; usage errors were already printed by commander.
      return error.exitCode === 0 ? 0 : 2;
    }
    io.stderr(`eql: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 70;
  }
}
