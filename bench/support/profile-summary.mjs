// Reading a V8 CPU profile (node:inspector's Profiler.stop) as shares of its samples.

/**
 * Time spent in each profile node itself (by node id), and in all.
 *
 * A sample's delta is the time since the sample before, so two kinds of sample would carry time that is not
 * theirs: the first, whose delta runs from the profiler's start (the inspector's own call, tens of
 * milliseconds in a short window), and one taken after the sampling thread went without the CPU (two cores,
 * both busy), whose delta is the whole gap. The first sample is left out, and no delta counts for more than
 * four times the median delta: a gap is shared like the samples around it, not given to whichever function
 * ran when the sampler got the CPU back. Samples in the collector keep their whole delta: its pauses are
 * long, its threads take the other core, and a sample still in the pause after the gap was in it all along.
 */
function sampledTime(profile) {
  const collector = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(garbage collector)').map((node) => node.id));
  const deltas = profile.timeDeltas.slice(1).filter((delta) => delta > 0).sort((a, b) => a - b);
  const cap = deltas.length > 0 ? 4 * deltas[deltas.length >> 1] : Infinity;
  const time = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    if (index === 0) return;
    const delta = collector.has(id) ? (profile.timeDeltas[index] ?? 0) : Math.min(profile.timeDeltas[index] ?? 0, cap);
    time.set(id, (time.get(id) ?? 0) + delta);
    total += delta;
  });
  return { time, total };
}

/** A profile node's function, where it is: `name file:line` (node_modules and the repository's root left out). */
function labelOf(node) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^file:\/\/.*?\/node_modules\//, '').replace(/^file:\/\/.*?\/(packages\/)/, '$1');
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}

/** Self and inclusive time by function of a V8 CPU profile, as shares of all samples, largest first. */
export function summarize(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const { time, total } = sampledTime(profile);
  const self = new Map();
  const inclusive = new Map();
  for (const [id, delta] of time) {
    const own = labelOf(nodes.get(id));
    self.set(own, (self.get(own) ?? 0) + delta);
    const seen = new Set();
    for (let current = id; current !== undefined; current = parents.get(current)) {
      const name = labelOf(nodes.get(current));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  }
  const sorted = (map) => [...map].map(([name, value]) => [name, value / total]).sort((a, b) => b[1] - a[1]);
  return { self: sorted(self), inclusive: sorted(inclusive) };
}

/**
 * Busy time by function (self) of a profile of a server that answered `answers` requests, in microseconds an
 * answer: comparable between two servers under the same load, where shares of samples are not (the idle
 * time and the system calls differ). `(idle)` is left out of `busy` and of the functions.
 */
export function selfTimePerAnswer(profile, answers) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const { time } = sampledTime(profile);
  const functions = new Map();
  let busy = 0;
  for (const [id, delta] of time) {
    const node = nodes.get(id);
    // Code compiled from text (`new Function`: Fastify's serializers and schema checks) is named anonymousN in
    // the order each app compiled it, so the same N is not the same function in two servers: counted as one.
    const label = node.callFrame.url === '' && /^anonymous\d+$/.test(node.callFrame.functionName) ? 'anonymous* (compiled serializers and schema checks)' : labelOf(node);
    if (label === '(idle)') continue;
    functions.set(label, (functions.get(label) ?? 0) + delta / answers);
    busy += delta / answers;
  }
  return { busy, functions };
}

/** The call tree under the first frame whose label includes `root`, as lines of inclusive shares (children above `min`). */
export function callTree(profile, root, min = 0.01, depth = 12) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const { time, total } = sampledTime(profile);
  const inclusive = (node) => (time.get(node.id) ?? 0) + (node.children ?? []).reduce((sum, child) => sum + inclusive(nodes.get(child)), 0);
  const label = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(packages|node_modules|bench)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
  const lines = [];
  const walk = (node, level) => {
    // Merge children with the same label (the same function reached twice).
    const merged = new Map();
    for (const id of node.children ?? []) {
      const child = nodes.get(id);
      const key = label(child);
      merged.set(key, [...(merged.get(key) ?? []), child]);
    }
    const rows = [...merged].map(([key, group]) => [key, group, group.reduce((sum, child) => sum + inclusive(child), 0)]).sort((a, b) => b[2] - a[2]);
    for (const [key, group, share] of rows) {
      if (share / total < min) continue;
      lines.push(`${'  '.repeat(level)}${((100 * share) / total).toFixed(1)}% ${key}`);
      if (level < depth) walk({ children: group.flatMap((child) => child.children ?? []) }, level + 1);
    }
  };
  const start = profile.nodes.filter((node) => label(node).includes(root));
  walk({ children: start.map((node) => node.id) }, 0);
  return lines;
}

/** Bytes allocated by function (self) in a sampling heap profile (HeapProfiler.stopSampling), as shares, largest first; `total` in bytes (an estimate: samples are weighted). */
export function allocationsBySite(profile) {
  const bytes = new Map();
  let total = 0;
  const walk = (node, caller) => {
    const { functionName, url, lineNumber } = node.callFrame;
    // A builtin (Map.prototype.set, an iterator's next) is named with the function that called it.
    const label = url === '' && caller !== undefined ? `${functionName || '(anonymous)'} in ${caller}` : `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules|bench)\//, '$1/')}:${lineNumber + 1}`;
    const own = node.selfSize;
    if (own > 0) {
      bytes.set(label, (bytes.get(label) ?? 0) + own);
      total += own;
    }
    for (const child of node.children ?? []) walk(child, url === '' ? caller : label);
  };
  walk(profile.head);
  const sites = [...bytes].map(([label, size]) => [label, size / total]).sort((a, b) => b[1] - a[1]);
  return Object.assign(sites, { total });
}
