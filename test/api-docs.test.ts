import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Application, Logger, LogLevel, type MinimalNode, type MinimalSourceFile } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Every export of the packages named in typedoc.json's `packagesRequiringDocumentation` has a TSDoc
 * comment, and so do the methods and accessors of their classes and interfaces. TypeDoc converts those
 * packages' entry points with the configuration of `npm run docs`, writes nothing, and its
 * `notDocumented` validation names what has no comment. To hold another package to this, add its name
 * to `packagesRequiringDocumentation` (its entry point must be in `entryPoints`).
 */

const ROOT = new URL('..', import.meta.url).pathname;

/** TypeDoc's messages, kept instead of printed; one about a place in a file ends with ` (in <file>)`. */
class RecordingLogger extends Logger {
  readonly messages: { level: LogLevel; text: string }[] = [];

  override log(message: string, level: LogLevel): void {
    super.log(message, level);
    this.messages.push({ level, text: message });
  }

  protected override addContext(message: string, _level: LogLevel, ...args: [MinimalNode?] | [number, MinimalSourceFile]): string {
    const file = args.length === 2 ? args[1].fileName : args[0]?.getSourceFile().fileName;
    return file === undefined ? message : `${message} (in ${relative(ROOT, file)})`;
  }
}

/**
 * Generated code (packages/core/src/generated) takes its comments from schemas/eql.schema.json: a problem
 * there is fixed in the schema, not here.
 */
const GENERATED = / \(in packages\/[^/]+\/src\/generated\/[^)]*\)$/;

/** The name of the package a source file belongs to: that of the nearest package.json above it. */
function packageOf(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name;
}

interface Checked {
  /** Packages that must be documented. */
  required: readonly string[];
  /** Their entry points. */
  entryPoints: readonly string[];
  /** What has no comment: `name (kind) in file`. */
  undocumented: string[];
  /** Any other warning or error of the conversion. */
  problems: string[];
}

async function checkDocumentation(): Promise<Checked> {
  const app = await Application.bootstrapWithPlugins({
    options: join(ROOT, 'typedoc.json'),
    // The type check is tsc's (npm test runs tsc -b first); here only the comments matter.
    skipErrorChecking: true,
    logLevel: 'Warn',
  });
  const logger = new RecordingLogger();
  app.logger = logger;
  const required = app.options.getValue('packagesRequiringDocumentation');
  const entryPoints = app.options.getValue('entryPoints').filter((entry) => required.includes(packageOf(entry)));
  app.options.setValue('entryPoints', entryPoints);
  // The program holds these entry points and what they import, not every package of tsconfig.docs.json.
  app.options.setCompilerOptions(entryPoints, app.options.getCompilerOptions(logger), []);

  const project = await app.convert();
  if (project) app.validate(project);
  const undocumented: string[] = [];
  const problems: string[] = project ? [] : ['TypeDoc could not convert the entry points'];
  for (const { level, text } of logger.messages) {
    if (level < LogLevel.Warn) continue;
    const missing = text.endsWith(' does not have any documentation') ? /^(\S+ \(\w+\)), defined in (\S+),/.exec(text) : null;
    if (missing) undocumented.push(`${missing[1]} in ${missing[2]}`);
    else if (!GENERATED.test(text)) problems.push(text);
  }
  return { required, entryPoints, undocumented, problems };
}

describe('API documentation', () => {
  let checked: Checked;
  beforeAll(async () => {
    checked = await checkDocumentation();
  }, 120_000);

  it('has an entry point for each package that must be documented', () => {
    expect([...new Set(checked.entryPoints.map(packageOf))].sort()).toEqual([...checked.required].sort());
  });

  it('has a TSDoc comment on every export of those packages', () => {
    const { undocumented } = checked;
    expect(undocumented, `without a /** comment */:\n  ${undocumented.join('\n  ')}\n`).toEqual([]);
  });

  it('converts without other warnings or errors', () => {
    expect(checked.problems).toEqual([]);
  });
});
