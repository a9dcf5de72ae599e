// @ts-check
// A TypeDoc plugin (see typedoc.json): each entry point's module takes the name it is imported by, read
// from the nearest package.json above the entry file: `@eql/core` instead of `core/src`, and
// `@eql/x402/fastify` for the file a subpath export ("./fastify") names under its "@eql/source" condition.
// So a new package needs only its line in typedoc.json's entryPoints.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Converter, ReflectionKind } from 'typedoc';

/**
 * The nearest package.json at or above `dir` and the folder it is in, or undefined.
 * @param {string} dir
 * @returns {{ dir: string, manifest: { name?: string, exports?: Record<string, unknown> } } | undefined}
 */
function packageAbove(dir) {
  for (let current = dir; ; current = dirname(current)) {
    const file = join(current, 'package.json');
    if (existsSync(file)) return { dir: current, manifest: JSON.parse(readFileSync(file, 'utf8')) };
    if (dirname(current) === current) return undefined;
  }
}

/**
 * The import specifier of a source file: the package name, with the subpath whose "@eql/source" target it is.
 * @param {string} fileName
 * @returns {string | undefined}
 */
function specifierOf(fileName) {
  const found = packageAbove(dirname(fileName));
  const name = found?.manifest.name;
  if (found === undefined || name === undefined) return undefined;
  for (const [subpath, target] of Object.entries(found.manifest.exports ?? {})) {
    const source = typeof target === 'object' && target !== null ? /** @type {Record<string, unknown>} */ (target)['@eql/source'] : undefined;
    if (typeof source === 'string' && resolve(found.dir, source) === resolve(fileName)) {
      return subpath === '.' ? name : `${name}${subpath.slice(1)}`;
    }
  }
  return name;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const fileName = context.project.getSymbolIdFromReflection(module)?.fileName ?? module.sources?.[0]?.fullFileName;
      const name = fileName === undefined ? undefined : specifierOf(fileName);
      if (name !== undefined) module.name = name;
    }
  });
}
