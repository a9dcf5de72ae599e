import { describe, expect, it } from 'vitest';
import { callTree, selfTimePerAnswer, summarize } from '../bench/support/profile-summary.mjs';

/** A CPU profile of a root calling `work` and `other`, with the collector beside them, and the given samples. */
function profileOf(samples: Array<[name: string, deltaUs: number]>) {
  const frame = (functionName: string) => ({ functionName, url: '', lineNumber: 0, columnNumber: 0, scriptId: '0' });
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5, 6] },
    { id: 2, callFrame: frame('work'), children: [] },
    { id: 3, callFrame: frame('other'), children: [] },
    { id: 4, callFrame: frame('(garbage collector)'), children: [] },
    { id: 5, callFrame: frame('dispatch'), children: [] },
    { id: 6, callFrame: frame('(idle)'), children: [] },
  ];
  const ids: Record<string, number> = { work: 2, other: 3, '(garbage collector)': 4, dispatch: 5, '(idle)': 6 };
  return { nodes, samples: samples.map(([name]) => ids[name]), timeDeltas: samples.map(([, delta]) => delta) };
}

const shareOf = (rows: unknown[][], name: string): number => (rows.find(([label]) => label === name)?.[1] as number | undefined) ?? 0;

describe('profile summary (bench/support/profile-summary.mjs)', () => {
  it('leaves out the first sample, whose delta runs from the profiler start', () => {
    const { self } = summarize(profileOf([['dispatch', 40_000], ['work', 100], ['other', 100]]));
    expect(shareOf(self, 'dispatch')).toBe(0);
    expect(shareOf(self, 'work')).toBeCloseTo(0.5);
  });

  it('gives a sample after a starved gap at most four median deltas, and a sample in the collector its whole delta', () => {
    const samples: Array<[string, number]> = [['dispatch', 1], ...Array.from({ length: 8 }, (): [string, number] => ['work', 100])];
    samples.push(['other', 5_000], ['(garbage collector)', 3_000]);
    const { self } = summarize(profileOf(samples));
    const total = 800 + 400 + 3_000;
    expect(shareOf(self, 'work')).toBeCloseTo(800 / total);
    expect(shareOf(self, 'other')).toBeCloseTo(400 / total);
    expect(shareOf(self, '(garbage collector)')).toBeCloseTo(3_000 / total);
    expect(callTree(profileOf(samples), '(root)', 0)).toContain('  71.4% (garbage collector) :1');
  });

  it("gives a server's busy time by function in microseconds an answer, idle left out", () => {
    const samples: Array<[string, number]> = [['dispatch', 40_000], ['work', 100], ['work', 100], ['other', 100], ['(idle)', 100], ['(idle)', 100]];
    const { busy, functions } = selfTimePerAnswer(profileOf(samples), 10);
    expect(busy).toBeCloseTo(30);
    expect(functions.get('work')).toBeCloseTo(20);
    expect(functions.get('other')).toBeCloseTo(10);
    expect(functions.has('(idle)')).toBe(false);
    expect(functions.has('dispatch')).toBe(false);
  });

  it('counts the functions compiled from text (anonymousN, numbered in the order an app compiled them) as one', () => {
    const profile = profileOf([['dispatch', 1], ['work', 100], ['other', 100]]);
    for (const node of profile.nodes.filter((entry) => entry.id === 2 || entry.id === 3)) node.callFrame.functionName = `anonymous${node.id}`;
    const { functions } = selfTimePerAnswer(profile, 1);
    expect([...functions.keys()]).toEqual(['anonymous* (compiled serializers and schema checks)']);
    expect(functions.get('anonymous* (compiled serializers and schema checks)')).toBeCloseTo(200);
  });
});
