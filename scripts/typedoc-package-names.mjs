// @ts-check
// A TypeDoc plugin (see typedoc.json): each entry point's module takes the name of the package it belongs to
// (`@eql/core` instead of `core/src`), read from the nearest package.json above the entry file, so a new
// package needs only its line in typedoc.json's entryPoints.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Converter, ReflectionKind } from 'typedoc';

/**
 * The `name` of the nearest package.json at or above `dir`, or undefined.
 * @param {string} dir
 * @returns {string | undefined}
 */
function packageNameAbove(dir) {
  for (let current = dir; ; current = dirname(current)) {
    const file = join(current, 'package.json');
    if (existsSync(file)) return /** @type {{ name?: string }} */ (JSON.parse(readFileSync(file, 'utf8'))).name;
    if (dirname(current) === current) return undefined;
  }
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const fileName = context.project.getSymbolIdFromReflection(module)?.fileName ?? module.sources?.[0]?.fullFileName;
      const name = fileName === undefined ? undefined : packageNameAbove(dirname(fileName));
      if (name !== undefined) module.name = name;
    }
  });
}
