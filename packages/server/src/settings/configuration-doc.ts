import { HOST_SETTINGS, OTHER_VARIABLES } from './host-settings.js';
import { expectation } from './setting.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/configuration.md, from the table of settings (written by `npm run docs:configuration`, checked for drift by a test). */
export function configurationMarkdown(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from packages/server/src/settings/host-settings.ts by `npm run docs:configuration`: do not edit. -->',
    '',
    'The host reads its settings from `EQL_*` environment variables, one table of them',
    '(`packages/server/src/settings/host-settings.ts`) read by one function: a value out of bounds, of the wrong kind',
    'or not among its choices stops the start with one line naming every such variable (`eql serve` exits 2); an',
    '`EQL_*` variable the host does not know is warned about at start, with a did-you-mean. A variable set to the',
    'empty string counts as unset. A **secret** is never printed, logged or repeated in an error, and may be given',
    'in a file instead: `<NAME>_FILE=/run/secrets/...` (its content, a trailing newline dropped; not both).',
    '',
    '`eql config print` shows the effective configuration of the environment it runs in (secrets masked, each',
    'value with where it came from: environment, file or default); `--json` for tools.',
    '',
  ];
  const groups = [...new Set(HOST_SETTINGS.map((setting) => setting.group))];
  for (const group of groups) {
    lines.push(`## ${group}`, '', '| Variable | Value | Default | Description |', '|---|---|---|---|');
    for (const setting of HOST_SETTINGS.filter((candidate) => candidate.group === group)) {
      const secret = setting.secret ? ` **Secret**${setting.file === false ? '' : ` (or \`${setting.name}_FILE\`)`}.` : '';
      lines.push(`| \`${setting.name}\` | ${cell(expectation(setting.kind))} | ${cell(setting.defaultText)} | ${cell(setting.description)}${secret} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Not the host\'s',
    '',
    `Read by the CLI and the tools, never warned about: ${OTHER_VARIABLES.names.map((name) => `\`${name}\``).join(', ')} (\`EQL_URL\`: the host the CLI talks to), and the variables starting with ${OTHER_VARIABLES.prefixes.map((prefix) => `\`${prefix}\``).join(', ')} (the tests, the fuzzer, the benchmarks).`,
    '',
  );
  return lines.join('\n');
}
