import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `validate` bundled for a browser (esbuild, minified, from the built dist: `npx tsc -b` first) runs the
// validators compiled ahead of time: ajv's compiler (and the URI parser it needs) is not in the bundle.
// `@eql/core/ajv` is where the compiler is. The size is printed: the detailed build compiled ahead of time
// is most of it (docs/performance.md).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'eql-core-weight-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function bundle(name: string, source: string): { size: number; inputs: string[] } {
  const entry = join(out, `${name}.mjs`);
  writeFileSync(entry, source);
  const meta = join(out, `${name}.json`);
  execFileSync(join(ROOT, 'node_modules', '.bin', 'esbuild'), [entry, '--bundle', '--minify', '--format=esm', '--platform=browser', `--outfile=${join(out, `${name}.js`)}`, `--metafile=${meta}`, '--log-level=error'], { stdio: 'pipe', cwd: ROOT });
  const { outputs } = JSON.parse(readFileSync(meta, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  return { size: statSync(join(out, `${name}.js`)).size, inputs: Object.values(outputs).flatMap((output) => Object.keys(output.inputs)) };
}

describe('validate bundled for a browser', () => {
  it('holds no ajv compiler; @eql/core/ajv does', { timeout: 60_000 }, () => {
    const core = join(ROOT, 'packages/core/dist');
    const validate = bundle('validate', `import { validate } from ${JSON.stringify(join(core, 'index.js'))}; globalThis.validate = validate;`);
    const compiler = bundle('ajv', `import { compiledRequestSchema } from ${JSON.stringify(join(core, 'ajv.js'))}; globalThis.compiled = compiledRequestSchema;`);
    console.log(`validate: ${(validate.size / 1024).toFixed(0)} KB minified; with @eql/core/ajv's compiler: ${(compiler.size / 1024).toFixed(0)} KB`);
    const compiles = (inputs: string[]) => inputs.filter((input) => /node_modules\/(ajv\/dist\/(compile|core)|fast-uri)\//.test(input) || /node_modules\/ajv\/dist\/core\.js$/.test(input));
    expect(compiles(validate.inputs)).toEqual([]);
    expect(compiles(compiler.inputs).length).toBeGreaterThan(0);
  });
});
