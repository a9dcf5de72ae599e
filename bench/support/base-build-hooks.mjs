// Module hooks (node:module `register`) that resolve `@eql/core` to packages/core/dist-base: a process
// started with `--import ./bench/support/base-build.mjs` runs the build from before a change. Used by
// compare-processes.mjs; the modules inside dist-base import each other by relative paths, so the whole
// process sees one build.
const BASE = new URL('../../packages/core/dist-base/index.js', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === '@eql/core') return { url: BASE, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
