/**
 * Deterministic clustering of documents by the terms they share, for event summaries (one shared
 * term makes a group) and narratives (two co-occurring terms seed a group, which then takes every
 * document holding two of its label terms). Greedy: the best seed over the documents not yet
 * grouped wins, ties broken by term order, so the same documents always give the same clusters.
 */

export interface ClusterDoc {
  /** Feature keys: token keys (`$PEPE`) and term stems. */
  features: ReadonlySet<string>;
}

export interface TermCluster {
  /** The seed feature(s). */
  seed: string[];
  /** Features present in at least half of the members, most frequent first (the seed first). */
  labels: string[];
  /** Indices of the member documents, ascending. */
  members: number[];
}

export interface ClusterOptions {
  /** Most clusters to return. */
  limit: number;
  /** Fewest documents a cluster needs (at least 2). */
  minSize: number;
  /** 1: seed by one shared feature; 2: by a co-occurring pair. */
  seedSize: 1 | 2;
  /** Features that may not seed a cluster (for example the keywords every document was searched by). */
  exclude?: ReadonlySet<string>;
  /** A feature held by more than this share of the documents is too common to seed (default 0.6). */
  maxShare?: number;
}

/** Tokens sort before words, then by spelling: a total order for ties. */
const featureOrder = (a: string, b: string) => Number(b.startsWith('$')) - Number(a.startsWith('$')) || (a < b ? -1 : a > b ? 1 : 0);

function counts(docs: readonly ClusterDoc[], members: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const index of members) for (const feature of (docs[index] as ClusterDoc).features) out.set(feature, (out.get(feature) ?? 0) + 1);
  return out;
}

/** Best feature (or pair) by support among `open`, or undefined when none reaches minSize. */
function bestSeed(docs: readonly ClusterDoc[], open: readonly number[], options: ClusterOptions, maxCount: number): string[] | undefined {
  const allowed = (feature: string) => !options.exclude?.has(feature);
  let best: { seed: string[]; support: number; key: string } | undefined;
  const consider = (seed: string[], support: number) => {
    if (support < options.minSize) return;
    const key = seed.join('\u0000');
    if (!best || support > best.support || (support === best.support && key < best.key)) best = { seed, support, key };
  };
  const single = counts(docs, open);
  if (options.seedSize === 1) {
    for (const [feature, support] of single) if (allowed(feature) && support <= maxCount) consider([feature], support);
    return best?.seed;
  }
  const pairs = new Map<string, number>();
  for (const index of open) {
    const features = [...(docs[index] as ClusterDoc).features].filter((feature) => allowed(feature) && (single.get(feature) ?? 0) >= options.minSize).sort(featureOrder);
    for (let i = 0; i < features.length; i++)
      for (let j = i + 1; j < features.length; j++) {
        const key = `${features[i] as string}\u0000${features[j] as string}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
  }
  for (const [key, support] of pairs) if (support <= maxCount) consider(key.split('\u0000'), support);
  return best?.seed;
}

/** Groups the documents; documents in no cluster are left out. */
export function clusterByTerms(docs: readonly ClusterDoc[], options: ClusterOptions): TermCluster[] {
  const minSize = Math.max(2, options.minSize);
  const settings = { ...options, minSize };
  const maxCount = Math.max(minSize, Math.floor((options.maxShare ?? 0.6) * docs.length));
  const clusters: TermCluster[] = [];
  let open = docs.map((_, index) => index);
  while (clusters.length < options.limit && open.length >= minSize) {
    const seed = bestSeed(docs, open, settings, maxCount);
    if (!seed) break;
    const core = open.filter((index) => seed.every((feature) => (docs[index] as ClusterDoc).features.has(feature)));
    const labelCounts = counts(docs, core);
    const labels = [...labelCounts.entries()]
      .filter(([feature, count]) => count * 2 >= core.length && !seed.includes(feature) && !options.exclude?.has(feature))
      .sort((a, b) => b[1] - a[1] || featureOrder(a[0], b[0]))
      .map(([feature]) => feature);
    const labelSet = [...seed, ...labels];
    const members =
      options.seedSize === 2 ? open.filter((index) => labelSet.filter((feature) => (docs[index] as ClusterDoc).features.has(feature)).length >= 2) : core;
    clusters.push({ seed, labels: labelSet.slice(0, 6), members });
    const taken = new Set(members);
    open = open.filter((index) => !taken.has(index));
  }
  return clusters;
}
