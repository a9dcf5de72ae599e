import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { type Editor, systemNeovim, trixieHelix, trixieNeovim } from './support/editors.js';

/**
 * The editor recipes of editors/ in real editors: Neovim (this machine's, and Debian trixie's 0.10)
 * opens a text-form document with a typo, starts the language server the recipe finds where npm put it
 * (the project's node_modules, or npm's global prefix), and shows its diagnostic; Helix's health check
 * reads the languages.toml and finds the server. An editor that cannot be had is a skipped test that
 * says why.
 */

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const recipe = join(here, '../editors/neovim/eql.lua');
const helixConfig = join(here, '../editors/helix/languages.toml');
const server = fileURLToPath(new URL('../bin/eql-language-server.js', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'eql-editors-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A project with the server in node_modules/.bin, a global npm prefix with it in bin/, and a loose directory. */
const project = join(work, 'project');
const prefix = join(work, 'npm-global');
const loose = join(work, 'loose');
for (const dir of [join(project, 'node_modules/.bin'), join(prefix, 'bin'), loose]) mkdirSync(dir, { recursive: true });
writeFileSync(join(project, 'package.json'), '{"name": "desk", "private": true}\n');
symlinkSync(server, join(project, 'node_modules/.bin/eql-language-server'));
symlinkSync(server, join(prefix, 'bin/eql-language-server'));
const typo = 'when price of BTC > 100000\nthen\n  notfy "BTC above 100k"\n';
writeFileSync(join(project, 'typo.eql'), typo);
writeFileSync(join(loose, 'typo.eql'), typo);

/** Lua run by the headless editor: the recipe's setup, the document opened, its diagnostics written out. */
const driver = join(work, 'driver.lua');
writeFileSync(
  driver,
  `local eql = dofile(os.getenv('EQL_RECIPE'))
eql.setup({ symbols = { 'BTC' } })
vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EQL_FILE')))
-- Waits for the server's diagnostics (the bound only ends a hang).
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 20)
local out = { filetype = vim.bo.filetype, cmd = eql.server_command(vim.api.nvim_buf_get_name(0)), diagnostics = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { message = d.message, line = d.lnum, column = d.col, source = d.source })
end
local file = io.open(os.getenv('EQL_OUT'), 'w')
file:write(vim.fn.json_encode(out))
file:close()
vim.cmd('qa!')
`,
);

interface Seen {
  filetype: string;
  cmd: string[];
  diagnostics: Array<{ message: string; line: number; column: number; source: string }>;
}

let runs = 0;
async function openInNeovim(editor: Editor, file: string, env: Record<string, string> = {}): Promise<Seen> {
  runs += 1;
  const out = join(work, `out-${runs}.json`);
  const [command, ...args] = editor.command;
  await run(command as string, [...args, '--headless', '--clean', '-u', 'NONE', '-c', `luafile ${driver}`], {
    env: { ...process.env, ...editor.env, ...env, EQL_RECIPE: recipe, EQL_FILE: file, EQL_OUT: out },
    timeout: 90_000,
  });
  return JSON.parse(readFileSync(out, 'utf8')) as Seen;
}

const expected = { message: "'notfy' is not a word of EQL: did you mean 'notify'?", line: 2, column: 2, source: 'eql' };

for (const [which, find] of [['this machine', systemNeovim], ['Debian trixie', trixieNeovim]] as const) {
  const editor = await find();
  if (typeof editor === 'string') {
    // No Neovim to run the recipe with (not installed, or the Debian package could not be fetched): the title says which.
    describe.skip(`Neovim of ${which}: ${editor}`, () => it('runs the recipe', () => {}));
    continue;
  }
  describe(`the Neovim recipe in ${editor.label}`, () => {
    it("starts the server of the project's node_modules and shows its diagnostics", async () => {
      const seen = await openInNeovim(editor, join(project, 'typo.eql'));
      expect(seen.filetype).toBe('eql');
      expect(seen.cmd).toEqual([join(project, 'node_modules/.bin/eql-language-server'), '--stdio']);
      expect(seen.diagnostics).toEqual([expected]);
    });

    it("starts the server of npm's global prefix outside a project", async () => {
      const seen = await openInNeovim(editor, join(loose, 'typo.eql'), { npm_config_prefix: prefix });
      expect(seen.cmd).toEqual([join(prefix, 'bin/eql-language-server'), '--stdio']);
      expect(seen.diagnostics).toEqual([expected]);
    });

    it('gives *.eql.json documents their own file type', async () => {
      const file = join(project, 'bad.eql.json');
      writeFileSync(file, '{"query": {"conditions": {"source": "price", "method": "current", "args": {"symbol": "BTC"}, "operator": ">", "value": 1}, "actions": [{"stepId": "a", "type": "notfy"}]}}\n');
      const seen = await openInNeovim(editor, file);
      expect(seen.filetype).toBe('eql-json');
      expect(seen.diagnostics.length).toBeGreaterThan(0);
      expect(seen.diagnostics.map((d) => d.message).join('\n')).toContain('notfy');
    });
  });
}

const helix = await trixieHelix();
if (typeof helix === 'string') {
  // No Helix package to read the recipe against (it could not be fetched): the title says why.
  describe.skip(`Helix: ${helix}`, () => it('reads the languages.toml', () => {}));
} else {
  describe(`the Helix languages.toml in ${helix.label}`, () => {
    it('is read, and its language server is found for both file types', async () => {
      const config = join(work, 'xdg');
      mkdirSync(join(config, 'helix'), { recursive: true });
      cpSync(helixConfig, join(config, 'helix/languages.toml'));
      const [command, ...args] = helix.command;
      for (const language of ['eql', 'eql-json']) {
        const { stdout } = await run(command as string, [...args, '--health', language], {
          env: { ...process.env, ...helix.env, XDG_CONFIG_HOME: config, PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, NO_COLOR: '1' },
          timeout: 60_000,
        });
        const plain = stdout.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
        expect(plain, language).toContain(`✓ eql-language-server: ${join(prefix, 'bin/eql-language-server')}`);
      }
    });
  });
}
