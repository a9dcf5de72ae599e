// What an active price query keeps in the heap, object by object: the objects a query adds, grouped by what
// they are and by the field that holds them (`QueryRuntime.createdAt -> number`). The engine benchmark
// prints the bytes a query adds (`bytesPerQuery`); this says which objects they are, which is what a young
// collection copies when a replacement query outlives it (sixteenth round of docs/performance.md).
//
//   node --expose-gc bench/support/query-footprint.mjs [--size 10000]
//
// The queries are those of bench/engine.mjs (one price.current condition, one notify action), on 500
// symbols, each on the side where it does not hold, so none fires. Two heap snapshots (before and after the
// adds) are compared by object id: an object counts when it is new, under the first object that holds it.
// Per-symbol structures (the topic's channel, series and index) are shared by the queries of the symbol and
// show as fractions of an object.
import { readFileSync, rmSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { Engine, PushSource } from '@eql/core';
import { HeapVirtualScheduler } from './heap-scheduler.mjs';
import { OPERATORS, SYMBOLS, SYMBOL_COUNT, eqlRequest } from './price-workload.mjs';

/** The engine's own classes, counted by name whatever holds them. */
const ENGINE_CLASSES = new Set(['QueryRuntime', 'NumericLeaf', 'ConditionGroup']);

const SIZE = process.argv.includes('--size') ? Number(process.argv[process.argv.indexOf('--size') + 1]) : 10_000;
const START = Date.UTC(2025, 0, 1);

/** A heap snapshot, parsed: its node and edge arrays and how to read them. */
function snapshot() {
  const file = writeHeapSnapshot();
  const parsed = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  const meta = parsed.snapshot.meta;
  const field = (fields, name) => fields.indexOf(name);
  return {
    nodes: parsed.nodes,
    edges: parsed.edges,
    strings: parsed.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    nodeWidth: meta.node_fields.length,
    edgeWidth: meta.edge_fields.length,
    type: field(meta.node_fields, 'type'),
    name: field(meta.node_fields, 'name'),
    id: field(meta.node_fields, 'id'),
    selfSize: field(meta.node_fields, 'self_size'),
    edgeCount: field(meta.node_fields, 'edge_count'),
    edgeType: field(meta.edge_fields, 'type'),
    edgeName: field(meta.edge_fields, 'name_or_index'),
    toNode: field(meta.edge_fields, 'to_node'),
  };
}

/** What a node is: its class for objects, else its kind (`number`, `string`, `array`, `code`...). */
function kindOf(heap, node) {
  const type = heap.nodeTypes[heap.nodes[node + heap.type]];
  if (type === 'object') return heap.strings[heap.nodes[node + heap.name]];
  if (type === 'concatenated string' || type === 'sliced string') return 'string';
  return type === 'array' ? `array ${heap.strings[heap.nodes[node + heap.name]]}`.trim() : type;
}

function ids(heap) {
  const known = new Set();
  for (let node = 0; node < heap.nodes.length; node += heap.nodeWidth) known.add(heap.nodes[node + heap.id]);
  return known;
}

/** Bytes and objects of the nodes not in `before`, by kind and by the field of the first object that holds each. */
function newObjects(before, heap) {
  // The first (strong) holder of each new node: its node and the field.
  const holderNode = new Map();
  const holderField = new Map();
  let edge = 0;
  for (let node = 0; node < heap.nodes.length; node += heap.nodeWidth) {
    const count = heap.nodes[node + heap.edgeCount];
    for (let k = 0; k < count; k += 1, edge += heap.edgeWidth) {
      const edgeType = heap.edgeTypes[heap.edges[edge + heap.edgeType]];
      if (edgeType === 'weak' || edgeType === 'shortcut') continue;
      const to = heap.edges[edge + heap.toNode];
      if (holderNode.has(to) || before.has(heap.nodes[to + heap.id])) continue;
      holderNode.set(to, node);
      holderField.set(to, edgeType === 'element' || edgeType === 'hidden' ? '[]' : String(heap.strings[heap.edges[edge + heap.edgeName]]));
    }
  }
  // V8's own: compiled code, its tables and what V8's roots hold (not a query's, however many queries).
  const internal = new Map();
  const isInternal = (node, depth = 0) => {
    if (internal.has(node)) return internal.get(node);
    const type = heap.nodeTypes[heap.nodes[node + heap.type]];
    let verdict = type === 'synthetic' || type === 'code' || type === 'native' || type === 'hidden';
    const holder = holderNode.get(node);
    if (!verdict && holder !== undefined && depth < 50) verdict = isInternal(holder, depth + 1);
    internal.set(node, verdict);
    return verdict;
  };
  const rows = new Map();
  for (let node = 0; node < heap.nodes.length; node += heap.nodeWidth) {
    if (before.has(heap.nodes[node + heap.id])) continue;
    const kind = kindOf(heap, node);
    const holder = holderNode.get(node);
    const held = holder === undefined ? '(root)' : `${kindOf(heap, holder)}.${holderField.get(node)}`;
    const key = isInternal(node) ? INTERNAL : ENGINE_CLASSES.has(kind) ? kind : `${held} -> ${kind}`;
    const row = rows.get(key) ?? { objects: 0, bytes: 0 };
    row.objects += 1;
    row.bytes += heap.nodes[node + heap.selfSize];
    rows.set(key, row);
  }
  return rows;
}

const INTERNAL = "(V8's own: compiled code, its tables, what its roots hold)";

const scheduler = new HeapVirtualScheduler(START);
const source = new PushSource();
const engine = new Engine({ scheduler, sources: [source] });
engine.eventsOf('trigger').subscribe(() => undefined);
for (let s = 0; s < SYMBOL_COUNT; s += 1) source.push({ at: START, source: 'price', symbol: SYMBOLS[s], price: 100 });
// Compiled code and caches of a first add are not a query's: warm up on queries added and removed. One
// query a symbol stays, so that the topics' channels, series and indexes are there before.
const requestOf = (i) => {
  const operator = OPERATORS[i % OPERATORS.length];
  const above = operator === '>' || operator === '>=' || operator === 'crosses_above' || (operator === '==' && i % 2 === 0);
  return eqlRequest(SYMBOLS[i % SYMBOL_COUNT], operator, 100 * (above ? 1.05 + i * 1e-7 : 0.95 - i * 1e-7));
};
for (let i = 0; i < 2_000; i += 1) engine.add({ queryId: `w${i}`, createdAt: START, request: requestOf(i) });
for (let i = SYMBOL_COUNT; i < 2_000; i += 1) engine.remove(`w${i}`);

const before = ids(snapshot());
for (let i = 0; i < SIZE; i += 1) engine.add({ queryId: `q${i}.0`, createdAt: START, request: requestOf(i) });
const fired = [...Array(SIZE).keys()].filter((i) => engine.inspect(`q${i}.0`)?.status !== 'active').length;
if (fired > 0) throw new Error(`${fired} of the queries fired: the footprint would count their records`);
const rows = [...newObjects(before, snapshot())].sort((a, b) => b[1].bytes - a[1].bytes);

let bytes = 0;
let objects = 0;
for (const [key, row] of rows) {
  if (key === INTERNAL) continue;
  bytes += row.bytes;
  objects += row.objects;
}
console.log(`${SIZE.toLocaleString('en-US')} active price queries on ${SYMBOL_COUNT} symbols: ${(bytes / SIZE).toFixed(0)} bytes and ${(objects / SIZE).toFixed(2)} objects a query (V8's code and tables apart)`);
console.log('  bytes  objects  (a query; what, under the field that holds it)');
for (const [key, row] of rows) {
  if (row.bytes / SIZE < 1) continue;
  console.log(`  ${(row.bytes / SIZE).toFixed(1).padStart(5)}  ${(row.objects / SIZE).toFixed(2).padStart(7)}  ${key}`);
}
