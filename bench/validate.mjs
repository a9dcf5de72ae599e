// Benchmark: validate() (schema + every semantic rule + cost estimate) against the bare compiled
// ajv schema, on the same documents, in one run. Prints throughput and the ratio (median of rounds).
// Aim (issue 2): the full validator keeps at least half of bare ajv's throughput.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Bench } from "tinybench";
import { eqlSchema, validate } from "@eql/core";

const requireFromCore = createRequire(
  new URL("../packages/core/package.json", import.meta.url),
);
const { Ajv2020 } = requireFromCore("ajv/dist/2020.js");
const addFormats = requireFromCore("ajv-formats");

const fixtures = new URL("../fixtures/eql/", import.meta.url);
const documents = readdirSync(fixtures)
  .filter(
    (name) =>
      JSON.parse(
        readFileSync(new URL(`${name}/expected.json`, fixtures), "utf8"),
      ).valid === true,
  )
  .map((name) =>
    JSON.parse(readFileSync(new URL(`${name}/input.json`, fixtures), "utf8")),
  );

const bareAjv = new Ajv2020({ discriminator: true, strict: false });
addFormats(bareAjv, ["date-time"]);
const bare = bareAjv.compile(eqlSchema);

// Every document must be valid for both, or the comparison is not like for like.
for (const document of documents) {
  if (!bare(document) || !validate(document).valid)
    throw new Error(
      `not a valid document: ${JSON.stringify(document).slice(0, 120)}`,
    );
}
const texts = documents.map((d) => JSON.stringify(d));
const bytes = texts.reduce((sum, text) => sum + text.length, 0);

// Interleaved pairs: a few milliseconds of one task, then as long of its peer, many times over. On a
// shared machine the speed drifts within seconds; the two sides of a pair run under the same load, and
// each aim is the median of the per-pair ratios (`--pairs N`, 400 by default; about 10 ms a pair).
const pairsAt = process.argv.indexOf("--pairs");
const PAIRS = Math.max(
  1,
  pairsAt >= 0 ? Number(process.argv[pairsAt + 1]) : 400,
);
let sink = 0;
const tasks = [
  [
    "bare ajv (compiled schema only)",
    () => {
      for (const document of documents) sink += bare(document) ? 1 : 0;
    },
  ],
  [
    "eql validate() (schema + rules + estimate)",
    () => {
      for (const document of documents)
        sink += validate(document).valid ? 1 : 0;
    },
  ],
  [
    "JSON.parse + bare ajv",
    () => {
      for (const text of texts) sink += bare(JSON.parse(text)) ? 1 : 0;
    },
  ],
  [
    "JSON.parse + eql validate()",
    () => {
      for (const text of texts)
        sink += validate(JSON.parse(text)).valid ? 1 : 0;
    },
  ],
];

// Warm-up with tinybench (its statistics are printed too), then calibrate each task to about 2.5 ms a batch.
const warm = new Bench({ name: "validate", time: 400, warmupTime: 300 });
for (const [name, run] of tasks) warm.add(name, run);
await warm.run();
const passesOf = tasks.map((_, index) =>
  Math.max(1, Math.round(0.0025 * warm.tasks[index].result.throughput.mean)),
);
const timed = (index) => {
  const passes = passesOf[index];
  const run = tasks[index][1];
  const start = process.hrtime.bigint();
  for (let pass = 0; pass < passes; pass += 1) run();
  return (
    (passes * documents.length * 1e9) / Number(process.hrtime.bigint() - start)
  );
};
const perPair = tasks.map(() => []);
for (let pair = 0; pair < PAIRS; pair += 1) {
  // Each pair's order alternates, so neither side always runs first.
  const order = pair % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
  for (const index of order) perPair[index].push(timed(index));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
};
const quantile = (values, q) =>
  [...values].sort((a, b) => a - b)[
    Math.min(values.length - 1, Math.floor(q * values.length))
  ];
const ratios = (of, to) =>
  perPair[of].map((value, pair) => value / perPair[to][pair]);
console.log(
  `validate benchmark: ${documents.length} valid fixture documents, ${Math.round(bytes / documents.length)} bytes on average; ${PAIRS} interleaved pairs, medians`,
);
tasks.forEach(([name], index) =>
  console.log(
    `  ${name.padEnd(45)} ${Math.round(median(perPair[index])).toLocaleString("en-US").padStart(12)} docs/s`,
  ),
);
const report = (label, values) => {
  const ratio = median(values);
  const range = `quartiles ${quantile(values, 0.25).toFixed(2)} to ${quantile(values, 0.75).toFixed(2)}`;
  console.log(
    `  ${label} ${ratio.toFixed(2)} (aim: >= 0.50; ${range}) ${ratio >= 0.5 ? "MET" : "NOT MET"}`,
  );
};
report("ratio on parsed documents, validate()/bare ajv:", ratios(1, 0));
report("ratio from JSON text (parse included in both): ", ratios(3, 2));
if (sink < 0) console.log(sink);
