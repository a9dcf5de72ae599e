// Benchmark: validate() (schema + every semantic rule + cost estimate) against the bare compiled
// ajv schema, on the same documents, in one run. Prints throughput and the ratio.
// Aim (issue 2): the full validator keeps at least half of bare ajv's throughput.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Bench } from 'tinybench';
import { eqlSchema, validate } from '@eql/core';

const requireFromCore = createRequire(new URL('../packages/core/package.json', import.meta.url));
const { Ajv2020 } = requireFromCore('ajv/dist/2020.js');
const addFormats = requireFromCore('ajv-formats');

const fixtures = new URL('../fixtures/eql/', import.meta.url);
const documents = readdirSync(fixtures)
  .filter((name) => JSON.parse(readFileSync(new URL(`${name}/expected.json`, fixtures), 'utf8')).valid === true)
  .map((name) => JSON.parse(readFileSync(new URL(`${name}/input.json`, fixtures), 'utf8')));

const bareAjv = new Ajv2020({ discriminator: true, strict: false });
addFormats(bareAjv, ['date-time']);
const bare = bareAjv.compile(eqlSchema);

// Every document must be valid for both, or the comparison is not like for like.
for (const document of documents) {
  if (!bare(document) || !validate(document).valid) throw new Error(`not a valid document: ${JSON.stringify(document).slice(0, 120)}`);
}
const texts = documents.map((d) => JSON.stringify(d));
const bytes = texts.reduce((sum, text) => sum + text.length, 0);

const bench = new Bench({ name: 'validate', time: 1500, warmupTime: 300 });
let sink = 0;
bench
  .add('bare ajv (compiled schema only)', () => {
    for (const document of documents) sink += bare(document) ? 1 : 0;
  })
  .add('eql validate() (schema + rules + estimate)', () => {
    for (const document of documents) sink += validate(document).valid ? 1 : 0;
  })
  .add('JSON.parse + bare ajv', () => {
    for (const text of texts) sink += bare(JSON.parse(text)) ? 1 : 0;
  })
  .add('JSON.parse + eql validate()', () => {
    for (const text of texts) sink += validate(JSON.parse(text)).valid ? 1 : 0;
  });
await bench.run();

const docsPerSecond = (task) => task.result.throughput.mean * documents.length;
const [bareTask, fullTask, bareTextTask, fullTextTask] = bench.tasks;
console.log(`validate benchmark: ${documents.length} valid fixture documents, ${Math.round(bytes / documents.length)} bytes on average`);
for (const task of bench.tasks) console.log(`  ${task.name.padEnd(45)} ${Math.round(docsPerSecond(task)).toLocaleString('en-US').padStart(12)} docs/s`);
const ratio = docsPerSecond(fullTask) / docsPerSecond(bareTask);
const textRatio = docsPerSecond(fullTextTask) / docsPerSecond(bareTextTask);
console.log(`  ratio on parsed documents, validate()/bare ajv: ${ratio.toFixed(2)} (aim: >= 0.50) ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`);
console.log(`  ratio from JSON text (parse included in both):  ${textRatio.toFixed(2)} (aim: >= 0.50) ${textRatio >= 0.5 ? 'MET' : 'NOT MET'}`);
if (sink < 0) console.log(sink);
