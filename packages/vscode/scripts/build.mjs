// Bundles the extension and the language server with esbuild into dist/ (CommonJS, for VS Code's
// Node), and copies the request schema there for the jsonValidation contribution.
// `node scripts/build.mjs [--minify]`; `buildServer({outdir})` is also used by the language
// server's tests to bundle the server into a temporary directory.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const repository = join(root, '..', '..');

/** Node 18 is what VS Code 1.82 ships; the server bundle also runs on any newer Node. */
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  // Workspace packages are bundled from their TypeScript sources (the "@eql/source" export condition).
  conditions: ['@eql/source'],
  mainFields: ['module', 'main'],
  sourcemap: false,
  logLevel: 'warning',
  legalComments: 'none',
};

/** The bundles are CommonJS inside an ESM package: a package.json in their directory says so to Node. */
async function markCommonJs(outdir) {
  await mkdir(outdir, { recursive: true });
  await writeFile(join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
}

/** The standalone server: `node server.js --stdio` (or `--node-ipc`). */
export async function buildServer({ outdir = join(root, 'dist'), minify = false } = {}) {
  await markCommonJs(outdir);
  await build({
    ...common,
    minify,
    stdin: {
      contents: "import { runServer } from '@eql/language-server/node';\nrunServer(process.argv.slice(2));\n",
      resolveDir: root,
      sourcefile: 'server-entry.ts',
      loader: 'ts',
    },
    outfile: join(outdir, 'server.js'),
  });
  return join(outdir, 'server.js');
}

/** The extension: the language client, with `vscode` left to the editor. */
export async function buildExtension({ outdir = join(root, 'dist'), minify = false } = {}) {
  await markCommonJs(outdir);
  await build({ ...common, minify, entryPoints: [join(root, 'src', 'extension.ts')], outfile: join(outdir, 'extension.js'), external: ['vscode'] });
  return join(outdir, 'extension.js');
}

export async function copySchema({ outdir = join(root, 'dist') } = {}) {
  await mkdir(outdir, { recursive: true });
  await copyFile(join(repository, 'schemas', 'eql.schema.json'), join(outdir, 'eql.schema.json'));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const minify = process.argv.includes('--minify');
  const started = Date.now();
  await Promise.all([buildServer({ minify }), buildExtension({ minify }), copySchema()]);
  console.log(`built ${join(dirname(root), 'vscode', 'dist')} (extension.js, server.js, eql.schema.json, package.json) in ${Date.now() - started} ms`);
}
