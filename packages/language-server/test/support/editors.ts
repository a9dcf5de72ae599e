import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Real editors for the tests of the editor recipes, from Debian: the machine's Neovim (Debian stable's,
 * installed with apt-get when missing and the tests run as root), and Neovim and Helix of Debian's next
 * release (trixie), downloaded with a private apt configuration into node_modules/.cache and run with
 * their own C library through its dynamic loader (nothing is installed on the machine). What cannot be
 * had is reported as the reason to skip, never faked.
 */

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../../../../', import.meta.url));
const cache = join(repository, 'node_modules', '.cache', 'eql-editors');

/** An editor binary and how to run it. */
export interface Editor {
  /** What it is, for test names: `Neovim 0.7.2 (Debian bookworm)`. */
  label: string;
  /** The command and the arguments that come before the editor's own. */
  command: string[];
  /** Environment the binary needs (its runtime files). */
  env: Record<string, string>;
}

async function versionOf(command: string[], env: Record<string, string>): Promise<string | undefined> {
  try {
    const { stdout } = await run(command[0] as string, [...command.slice(1), '--version'], { env: { ...process.env, ...env }, timeout: 30_000 });
    return /(?:NVIM v|helix )(\S+)/.exec(stdout)?.[1] ?? stdout.split('\n')[0];
  } catch {
    return undefined;
  }
}

/** The machine's Neovim, installed from Debian when missing (as root); or why there is none. */
export async function systemNeovim(): Promise<Editor | string> {
  let version = await versionOf(['nvim'], {});
  if (version === undefined && process.platform === 'linux' && process.getuid?.() === 0) {
    try {
      // Other test files install Debian packages too (Chromium): wait for dpkg's lock instead of failing at once.
      await run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-q', 'neovim'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 300_000 });
    } catch (error) {
      return `apt-get install neovim failed: ${(error as Error).message.split('\n')[0] ?? ''}`;
    }
    version = await versionOf(['nvim'], {});
  }
  if (version === undefined) return 'no nvim on the PATH (and not root to install Debian\'s)';
  return { label: `Neovim ${version} (this machine's)`, command: ['nvim'], env: {} };
}

interface Trixie {
  root: string;
  loader: string;
  libraries: string;
}

let trixie: Promise<Trixie | string> | undefined;

/** Debian trixie's neovim and hx packages unpacked under node_modules/.cache, fetched once. */
function trixieRoot(): Promise<Trixie | string> {
  trixie ??= (async () => {
    if (process.platform !== 'linux' || process.arch !== 'x64') return `Debian trixie packages are amd64 Linux (this is ${process.platform} ${process.arch})`;
    const root = join(cache, 'root');
    const loader = join(root, 'usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2');
    const libraries = [join(root, 'usr/lib/x86_64-linux-gnu'), join(root, 'lib/x86_64-linux-gnu')].join(':');
    if (existsSync(join(root, 'usr/bin/nvim')) && existsSync(join(root, 'usr/bin/hx')) && existsSync(loader)) return { root, loader, libraries };
    try {
      const apt = join(cache, 'apt');
      for (const dir of ['sources', 'lists/partial', 'cache/archives/partial', 'debs']) mkdirSync(join(apt, dir), { recursive: true });
      writeFileSync(join(apt, 'sources/trixie.sources'), 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n');
      writeFileSync(join(apt, 'status'), '');
      const options = [
        '-o', 'Dir::Etc::SourceList=/dev/null',
        '-o', `Dir::Etc::SourceParts=${join(apt, 'sources')}`,
        '-o', `Dir::State::Lists=${join(apt, 'lists')}`,
        '-o', `Dir::State::Status=${join(apt, 'status')}`,
        '-o', `Dir::Cache=${join(apt, 'cache')}`,
        '-o', 'APT::Sandbox::User=root',
        '-q',
      ];
      await run('apt-get', [...options, 'update'], { timeout: 300_000 });
      const packages = ['neovim', 'neovim-runtime', 'hx', 'libc6', 'libgcc-s1', 'libluajit-5.1-2', 'libmsgpack-c2', 'libtree-sitter0.22', 'libunibilium4', 'libuv1t64', 'libvterm0', 'lua-lpeg', 'lua-luv'];
      await run('apt-get', [...options, 'download', ...packages], { cwd: join(apt, 'debs'), timeout: 300_000 });
      for (const deb of readdirSync(join(apt, 'debs')).filter((name) => name.endsWith('.deb'))) await run('dpkg', ['-x', join(apt, 'debs', deb), root], { timeout: 120_000 });
      return { root, loader, libraries };
    } catch (error) {
      return `could not fetch Debian trixie's neovim and hx: ${(error as Error).message.split('\n')[0] ?? ''}`;
    }
  })();
  return trixie;
}

async function trixieEditor(binary: 'nvim' | 'hx', name: string): Promise<Editor | string> {
  const found = await trixieRoot();
  if (typeof found === 'string') return found;
  const command = [found.loader, '--library-path', found.libraries, join(found.root, 'usr/bin', binary)];
  const env: Record<string, string> = binary === 'nvim' ? { VIMRUNTIME: join(found.root, 'usr/share/nvim/runtime') } : { HELIX_RUNTIME: join(found.root, 'usr/lib/helix/runtime') };
  const version = await versionOf(command, env);
  if (version === undefined) return `Debian trixie's ${binary} does not start here`;
  return { label: `${name} ${version} (Debian trixie)`, command, env };
}

/** Debian trixie's Neovim (0.10), or why there is none. */
export function trixieNeovim(): Promise<Editor | string> {
  return trixieEditor('nvim', 'Neovim');
}

/** Debian trixie's Helix, or why there is none. */
export function trixieHelix(): Promise<Editor | string> {
  return trixieEditor('hx', 'Helix');
}
