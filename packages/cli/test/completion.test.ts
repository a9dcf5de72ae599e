import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../src/index.js';

// `eql completion`: the bash script, sourced by a real bash, completes subcommands (nested too),
// options and their choices, and file names; fish gets a line per subcommand and option.

const dir = mkdtempSync(join(tmpdir(), 'eql-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function eql(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), readStdin: () => Promise.resolve(''), readFile: () => Promise.reject(new Error('none')), color: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** What bash completes for a command line (the word under the cursor last; a trailing space starts a new one). */
function complete(script: string, line: string): Promise<string[]> {
  const words = line.split(' ');
  const program = `source ${script}; COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _eql; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', program], { cwd: dir }, (error, stdout) => (error ? reject(new Error(error.message)) : resolve(stdout.split('\n').filter(Boolean).sort())));
  });
}

describe('eql completion', () => {
  it('bash: subcommands, nested subcommands, options, choices and files', async () => {
    const { code, stdout } = await eql(['completion', 'bash']);
    expect(code).toBe(0);
    const script = join(dir, 'eql.bash');
    writeFileSync(script, stdout);
    writeFileSync(join(dir, 'alert.eql'), '');
    writeFileSync(join(dir, 'alert.json'), '');
    expect(await complete(script, 'eql k')).toEqual(['keys']);
    expect(await complete(script, 'eql keys r')).toEqual(['revoke', 'rotate', 'rotate-webhook-secret']);
    expect(await complete(script, 'eql validate --m')).toEqual(['--max-warnings', '--mode']);
    expect(await complete(script, 'eql validate --mode p')).toEqual(['payment']);
    expect(await complete(script, 'eql bus ')).toEqual(['publish', 'status']);
    expect(await complete(script, 'eql validate al')).toEqual(['alert.eql', 'alert.json']);
  });

  it('zsh loads the bash script through bashcompinit; fish gets one line per subcommand and option; other shells: exit 2', async () => {
    expect((await eql(['completion', 'zsh'])).stdout).toContain('autoload -U +X bashcompinit && bashcompinit');
    const fish = (await eql(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c eql -n '__fish_seen_subcommand_from keys' -a 'rotate'");
    expect(fish).toContain("complete -c eql -n '__fish_seen_subcommand_from validate' -l 'mode' -xa 'api-key payment'");
    expect((await eql(['completion', 'tcsh'])).code).toBe(2);
  });
});
