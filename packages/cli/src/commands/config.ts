import { configFromEnv, printedSettings, settingsWarnings } from '@eql/server';
import type { CliIo } from '../io.js';
import { paint, UnusableInput } from '../io.js';

/**
 * `eql config print`: the effective configuration of `env`, each `EQL_*` setting with its value (a secret
 * masked) and where it came from, grouped as docs/configuration.md; then the unknown `EQL_*` variables.
 * A configuration the host would refuse exits 2 with every problem, each naming its variable.
 */
export function configPrintCommand(flags: { json: boolean }, io: CliIo, env: NodeJS.ProcessEnv): number {
  let printed;
  let warnings: string[];
  try {
    // As `eql serve` reads it: the same errors, across variables too (a bus user without its password, ...).
    configFromEnv(env);
    printed = printedSettings(env);
    warnings = settingsWarnings(env);
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify({ settings: printed, warnings }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...printed.map((setting) => setting.name.length));
  let group = '';
  for (const setting of printed) {
    if (setting.group !== group) {
      group = setting.group;
      io.stdout(`${group === printed[0]?.group ? '' : '\n'}${paint(io, 'bold', `# ${group}`)}\n`);
    }
    const from = setting.source === 'default' ? paint(io, 'dim', '(default)') : setting.source === 'file' ? `(from ${setting.name}_FILE)` : '';
    io.stdout(`${setting.name.padEnd(width)}  ${setting.value}${from ? `  ${from}` : ''}\n`);
  }
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  return 0;
}
