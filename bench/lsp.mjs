// Benchmark: latency of the language server's diagnostics for a document, through the service
// layer (no JSON-RPC): the new text, parse (text form or JSON), schema + semantic validation, and
// the LSP diagnostics with their ranges. Side by side with vscode-json-languageservice, the JSON
// language service of VS Code, validating the same request as JSON against the same schema
// (parseJSONDocument + doValidation, schema only), in the same process.
// Aim (issue 2): our full diagnostics (syntax + schema + semantics) at most as slow as its
// schema-only validation.
import { performance } from 'node:perf_hooks';
import { eqlSchema, validate } from '@eql/core';
import { createEqlServices } from '@eql/language-server';
import { parseText, printText } from '@eql/syntax';
import { getLanguageService } from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';

// ------------------------------------------------------------------ documents

const small = {
  title: 'BTC breakout with bullish sentiment',
  query: {
    conditions: {
      AND: [
        { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 },
        { source: 'llm', method: 'athena_condition', args: { query: 'Is crypto market sentiment bullish?', period: '1h' } },
      ],
    },
    actions: [{ stepId: 'alert', type: 'notify', params: { message: 'BTC broke 100k with bullish sentiment' } }],
    expiresIn: '24h',
  },
};

/**
 * One request holds one query, and a query has at most 32 leaf conditions and 10 actions. The size
 * comes from what the language lets grow: 32 conditions in nested groups, and webhook actions whose
 * `payload` (free JSON sent with the webhook) is a long object, pretty-printed.
 */
function bigRequest() {
  const symbols = ['BTC', 'ETH', 'SOL', 'XRP', 'DOGE', 'ADA', 'AVAX', 'LINK'];
  const leaf = (i) => {
    const symbol = symbols[i % symbols.length];
    switch (i % 4) {
      case 0:
        return { source: 'price', method: 'current', args: { symbol, exchange: 'binance' }, operator: '>', value: 1000 + i };
      case 1:
        return { source: 'ta', method: 'rsi', args: { symbol, timeframe: '4h', period: 14 }, operator: 'crosses_above', value: 30 + (i % 40) };
      case 2:
        return { source: 'price', method: 'change', args: { symbol, period: '24h' }, operator: '<', value: -5 - (i % 10) };
      default:
        return { source: 'ta', method: 'macd_histogram', args: { symbol, timeframe: '1h', fastPeriod: 12, slowPeriod: 26, signalPeriod: 9 }, operator: '>', value: 0, holdFor: '15m' };
    }
  };
  const groups = Array.from({ length: 4 }, (_, g) => ({ [g % 2 === 0 ? 'AND' : 'OR']: Array.from({ length: 8 }, (_, i) => leaf(g * 8 + i)) }));
  const payload = (a) => ({
    desk: `desk-${a}`,
    strategy: { name: `breakout-${a}`, version: a, tags: ['momentum', 'crypto', 'alerts'], owner: { team: 'quant', contact: 'desk@example.com' } },
    levels: Array.from({ length: 150 }, (_, i) => Math.round((1000 + i * 12.5 + a) * 100) / 100),
    notes: Array.from({ length: 20 }, (_, i) => ({ at: i, text: `level ${i} of action ${a}` })),
  });
  const actions = [
    { stepId: 'alert', type: 'notify', params: { message: 'Breakout across the majors', priority: 'high' } },
    ...Array.from({ length: 9 }, (_, a) => ({ stepId: `hook-${a}`, type: 'webhook', params: { url: `https://hooks.example.com/eql/${a}`, headers: { 'X-Desk': `desk-${a}` }, payload: payload(a) } })),
  ];
  return { title: 'Majors breakout', description: 'A large query for the language-server benchmark.', query: { conditions: { AND: groups }, actions, expiresIn: '7d' } };
}

/** The same request with two mistakes the validator places on their tokens (so ranges get mapped). */
function withMistakes(request) {
  const copy = structuredClone(request);
  copy.query.conditions.AND[0].AND[0].args.symbol = '$BTC';
  copy.query.actions[0].params.priority = 'urgent';
  return copy;
}

/** The text form of a request; webhook payloads spread over lines as in the JSON (the text form ignores layout). */
function textOf(request) {
  let text = printText(request);
  for (const action of request.query.actions) {
    if (action.type !== 'webhook') continue;
    const line = oneLine(action.params.payload);
    const pretty = JSON.stringify(action.params.payload, null, 2).replace(/\n/g, '\n    ');
    text = text.replace(line, pretty);
  }
  const back = parseText(text);
  if (back.value === undefined || JSON.stringify(back.value) !== JSON.stringify(request)) throw new Error('the text form does not read back as the request');
  return text;
}

/** JSON on one line as the printer writes it: `{"a": [1, 2]}`. */
function oneLine(value) {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`).join(', ')}}`;
  return JSON.stringify(value);
}

// ------------------------------------------------------------------ measuring

const lines = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), runs: sorted.length };
}

async function measure(run, budgetMs = 1500, minRuns = 30, warmup = 15) {
  for (let i = 0; i < warmup; i += 1) await run();
  const samples = [];
  const end = performance.now() + budgetMs;
  while (samples.length < minRuns || (performance.now() < end && samples.length < 5000)) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return percentiles(samples);
}

// Ours: the services of the server, with a no-op debounce (each run asks for the validated state).
const services = createEqlServices({ timers: { set: () => 0, clear: () => {} } });
let version = 1;
let produced = 0;
function ours(uri, languageId, text) {
  services.documents.open(uri, languageId, version, text);
  return () => {
    version += 1;
    services.documents.change(uri, version, [{ text }]);
    const document = services.documents.get(uri, 'validated');
    produced = services.diagnostics.diagnostics(document).length;
  };
}

// Theirs: vscode-json-languageservice configured with the EQL schema for *.eql.json.
// A copy of the schema: the service resolves $refs inside the schema object it is given (it mutates
// it), and @eql/core compiles its own schema from the original.
const json = getLanguageService({});
json.configure({ validate: true, allowComments: false, schemas: [{ uri: eqlSchema.$id, fileMatch: ['*.eql.json'], schema: structuredClone(eqlSchema) }] });
let theirCount = 0;
function theirs(uri, text) {
  return async () => {
    version += 1;
    const document = TextDocument.create(uri, 'json', version, text);
    const problems = await json.doValidation(document, json.parseJSONDocument(document), { schemaValidation: 'error', comments: 'error', trailingCommas: 'error' });
    theirCount = problems.length;
  };
}

const big = bigRequest();
const bad = withMistakes(big);
if (!validate(big).valid) throw new Error(`the big request must be valid: ${validate(big).errors.join('; ')}`);
const cases = [
  { name: '1 query', request: small },
  { name: '2,000-line query', request: big },
  { name: '2,000-line query, 2 errors', request: bad },
];

const ms = (value) => value.toFixed(3).padStart(8);
console.log(`lsp diagnostics latency, median / p95 in ms (Node ${process.version})`);
console.log('  ours: new text → parse → schema + semantic rules → LSP diagnostics with ranges (service layer)');
console.log('  vscode-json-languageservice: parseJSONDocument + doValidation against the same schema (schema only)\n');
console.log(`  ${'document'.padEnd(28)} ${'form'.padEnd(5)} ${'lines'.padStart(6)}   ${'ours'.padStart(19)}   ${'json-languageservice'.padStart(19)}   ratio`);
const aims = { json: true, text: true };
const parseOnly = [];
for (const { name, request } of cases) {
  const jsonText = `${JSON.stringify(request, null, 2)}\n`;
  const text = textOf(request);
  const their = await measure(theirs(`file:///bench/${name.length}-${version}.eql.json`, jsonText));
  const theirProblems = theirCount;
  for (const [form, source, languageId, extension] of [['json', jsonText, 'eql-json', '.eql.json'], ['text', text, 'eql', '.eql']]) {
    const our = await measure(ours(`file:///bench/${encodeURIComponent(name)}${extension}`, languageId, source));
    const ratio = our.median / their.median;
    aims[form] &&= ratio <= 1;
    console.log(
      `  ${name.padEnd(28)} ${form.padEnd(5)} ${String(lines(source)).padStart(6)}   ${ms(our.median)} /${ms(our.p95)}   ${ms(their.median)} /${ms(their.p95)}   ${ratio.toFixed(2)}  (diagnostics: ours ${produced}, theirs ${theirProblems})`,
    );
    if (form === 'text') parseOnly.push([name, our.median, (await measure(() => parseText(source))).median]);
  }
}

// Keystrokes: one incremental change (a range edit, as an editor sends it) to the open 2,000-line text
// document, then its diagnostics. Each edit is undone by the next run, so every run is a real change.
const keystrokeText = textOf(big);
const keystrokeUri = 'file:///bench/keystroke.eql';
services.documents.open(keystrokeUri, 'eql', version, keystrokeText);
const positionOf = (offset) => {
  const before = keystrokeText.slice(0, offset);
  return { line: before.split('\n').length - 1, character: offset - before.lastIndexOf('\n') - 1 };
};
function keystroke(offset, typed) {
  const at = positionOf(offset);
  let typedNow = false;
  return () => {
    version += 1;
    const range = typedNow ? { start: at, end: { line: at.line, character: at.character + typed.length } } : { start: at, end: at };
    services.documents.change(keystrokeUri, version, [{ range, text: typedNow ? '' : typed }]);
    typedNow = !typedNow;
    const document = services.documents.get(keystrokeUri, 'validated');
    produced = services.diagnostics.diagnostics(document).length;
  };
}
const levels = keystrokeText.indexOf('"levels"');
const keystrokes = [
  ['a digit inside a payload (stays valid)', keystroke(keystrokeText.indexOf('1000', levels), '7')],
  ['a comma missing inside a payload', keystroke(keystrokeText.indexOf(',', levels) + 1, ' x')],
  ['a word typed in the conditions', keystroke(keystrokeText.indexOf('price of'), 'q')],
];
let keystrokeAim = true;
console.log(`\n  keystroke in the ${lines(keystrokeText)}-line text document, then its diagnostics (median / p95 in ms; aim: median <= 2 ms)`);
for (const [name, run] of keystrokes) {
  const result = await measure(run);
  keystrokeAim &&= result.median <= 2;
  console.log(`    ${name.padEnd(42)} ${ms(result.median)} /${ms(result.p95)}`);
}
console.log(`  aim, a keystroke re-validated in <= 2 ms: ${keystrokeAim ? 'MET' : 'NOT MET'}`);

console.log(`\n  aim, ours <= theirs on the same JSON (like for like): ${aims.json ? 'MET' : 'NOT MET'}`);
console.log(`  the text form against theirs on the JSON:            ${aims.text ? 'MET' : 'NOT MET'}; of its median, parseText (@eql/syntax) alone takes:`);
for (const [name, total, parse] of parseOnly) console.log(`    ${name.padEnd(28)} ${ms(parse)} of ${ms(total)} ms`);
