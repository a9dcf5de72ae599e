import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs in Node's hooks thread: appends every resolved module URL to the log file, synchronously. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

/**
 * Which modules a child Node process loads: writes into `dir` a `module.register` hook that logs
 * every resolved URL to the file named by `EQL_TEST_MODULE_LOG`, and a preload (with `extra` code
 * appended) that registers it. Returns the preload's URL, for `node --import <url> ...`.
 */
export function writeModuleLogger(dir: string, extra = ''): string {
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'preload.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url, { data: { log: process.env.EQL_TEST_MODULE_LOG } });\n${extra}`);
  return pathToFileURL(join(dir, 'preload.mjs')).href;
}
