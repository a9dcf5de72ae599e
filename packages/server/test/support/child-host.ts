import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * `eql serve` as a child process (the built CLI, so `npx tsc -b` first), for tests that kill the host
 * with SIGKILL and start it again on the same data directory. Every wait here is for an event (a line
 * the child prints, its exit), never a wall-clock budget: the test's own timeout bounds them.
 */

const bin = fileURLToPath(new URL('../../../cli/bin/eql.js', import.meta.url));

export interface ChildHost {
  process: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Its exit code (null when a signal ended it). */
  exit: Promise<number | null>;
  /** Resolves with the first line matching `pattern` (printed before or after the call); rejects if it exits first. */
  line(pattern: RegExp, what: string): Promise<string>;
  /** SIGKILL, then its exit. */
  kill9(): Promise<void>;
}

const children: ChildProcess[] = [];

/**
 * Starts `eql serve` with `env` (on top of this process's environment without its EQL_ variables) and
 * resolves once it prints `listening on http://…`. `preload` is a module loaded first (`node --import`);
 * `args` follow `serve` (flags).
 */
export async function serveChild(env: Record<string, string>, options: { preload?: string; args?: string[] } = {}): Promise<ChildHost> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
  const args = [...(options.preload ? ['--import', options.preload] : []), bin, 'serve', ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const listeners = new Set<() => void>();
  const heard = (chunk: string) => {
    output += chunk;
    for (const listener of [...listeners]) listener();
  };
  child.stdout.setEncoding('utf8').on('data', heard);
  child.stderr.setEncoding('utf8').on('data', heard);
  let exited = false;
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      exited = true;
      for (const listener of [...listeners]) listener();
      resolve(code);
    });
  });
  const line = (pattern: RegExp, what: string) =>
    new Promise<string>((resolve, reject) => {
      const judge = () => {
        const found = output.split('\n').find((text) => pattern.test(text));
        if (found !== undefined) {
          listeners.delete(judge);
          resolve(found);
        } else if (exited) {
          listeners.delete(judge);
          reject(new Error(`eql serve exited before ${what}:\n${output}`));
        }
      };
      listeners.add(judge);
      judge();
    });
  await line(/listening on http:\/\//, 'listening');
  return {
    process: child,
    output: () => output,
    exit,
    line,
    kill9: async () => {
      child.kill('SIGKILL');
      await exit;
    },
  };
}

/** Kills every child still running (afterAll). */
export function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** What a child that was expected to refuse to start said: its exit code, and its stdout and stderr apart. */
export interface RefusedChild {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `eql serve` with `env` (as {@link serveChild}) and waits for it to exit, for a host that must
 * refuse to start. Should it start instead (`listening on`), it is killed and the promise rejects.
 */
export function serveChildRefused(env: Record<string, string>): Promise<RefusedChild> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EQL_') && name !== 'NODE_OPTIONS'));
  const child = spawn(process.execPath, [bin, 'serve'], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  return new Promise<RefusedChild>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (/listening on http:\/\//.test(stdout)) {
        child.kill('SIGKILL');
        reject(new Error(`eql serve started where it should have refused:\n${stdout}${stderr}`));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
