import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allActions, collectConditions } from '@eql/core';
import { argsOf, paramsOf } from '../src/language/query-walk.js';
import { valueAtPointer } from '../src/util/json-pointer.js';

/** Condition trees of any shape: leaves, AND / OR groups (some very deep), and junk where members go. */
const conditionTree = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ source: fc.constantFrom('price', 'ta', 'llm'), method: fc.string({ maxLength: 3 }) }),
    fc.record({ source: fc.jsonValue({ maxDepth: 1 }), method: fc.jsonValue({ maxDepth: 1 }), args: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: ['source'] }),
    fc.record({ AND: fc.array(tie('tree'), { maxLength: 4 }) }),
    fc.record({ OR: fc.array(tie('tree'), { maxLength: 4 }) }),
    fc.record({ AND: fc.array(tie('tree'), { maxLength: 2 }), source: fc.constant('price') }),
    fc.jsonValue({ maxDepth: 1 }),
  ),
})).tree;

/** A chain of single-member groups `depth` deep, with leaves beside it on the way down. */
const deepTree = fc.tuple(fc.integer({ min: 1, max: 300 }), fc.boolean()).map(([depth, withSiblings]) => {
  let tree: unknown = { source: 'price' };
  for (let i = 0; i < depth; i += 1) tree = { [i % 2 === 0 ? 'AND' : 'OR']: withSiblings ? [{ source: 'ta' }, tree, { source: 'llm' }] : [tree] };
  return tree;
});

describe('collectConditions', () => {
  it('walks recursively under a low cap exactly as with its own stack under a high one', () => {
    fc.assert(
      fc.property(fc.oneof(conditionTree, deepTree), fc.constantFrom(1, 2, 8, 64, 256), (conditions, cap) => {
        const query = { conditions };
        const recursive = collectConditions(query, '/query', cap);
        const iterative = collectConditions(query, '/query', Infinity);
        // Up to where the capped walk stopped, both met the same groups and leaves in the same order.
        expect(recursive.groups).toEqual(iterative.groups.slice(0, recursive.groups.length));
        expect(recursive.leaves).toEqual(iterative.leaves.slice(0, recursive.leaves.length));
        expect(recursive.tooDeep).toBe(iterative.groups.some((group) => group.depth >= cap));
        if (!recursive.tooDeep) expect(recursive).toEqual(iterative);
        else expect(iterative.groups[recursive.groups.length]?.depth).toBeGreaterThanOrEqual(cap);
      }),
      { numRuns: 1000 },
    );
  });

  it('points each group and leaf at its node in the request, and hands groups their members', () => {
    fc.assert(
      fc.property(fc.oneof(conditionTree, deepTree), (conditions) => {
        const request = { query: { conditions } };
        const { groups, leaves } = collectConditions(request.query, '/query');
        for (const visit of [...groups, ...leaves]) expect(valueAtPointer(request, visit.pointer)).toBe(visit.node);
        for (const group of groups) expect(group.members).toBe(group.node[group.operator]);
      }),
      { numRuns: 500 },
    );
  });

  it('walks hostile nesting under no cap without exhausting the stack', () => {
    let conditions: unknown = { source: 'price' };
    for (let i = 0; i < 50_000; i += 1) conditions = { AND: [conditions] };
    const tree = collectConditions({ conditions });
    expect(tree.groups).toHaveLength(50_000);
    expect(tree.leaves).toHaveLength(1);
    expect(tree.tooDeep).toBe(false);
  });

  it("hands rules each leaf's source, method and args as its node holds them (args an object, else empty)", () => {
    fc.assert(
      fc.property(conditionTree, (conditions) => {
        for (const leaf of collectConditions({ conditions }, '/query', 64).leaves) {
          expect(leaf.source).toBe(leaf.node.source);
          expect(leaf.method).toBe(leaf.node.method);
          expect(leaf.args).toEqual(argsOf(leaf.node));
          if (typeof leaf.node.args === 'object' && leaf.node.args !== null && !Array.isArray(leaf.node.args)) expect(leaf.args).toBe(leaf.node.args);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('allActions', () => {
  it("hands rules each action's type and params as its node holds them (params an object, else empty)", () => {
    const action = fc.record({ type: fc.jsonValue({ maxDepth: 1 }), params: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] });
    const llmStep = fc.record({ type: fc.constant('llm'), params: fc.record({ callback: fc.record({ action }) }) });
    fc.assert(
      fc.property(fc.array(fc.oneof(action, llmStep, fc.jsonValue({ maxDepth: 1 })), { maxLength: 5 }), (actions) => {
        const visits = allActions({ actions });
        for (const visit of visits) {
          expect(visit.type).toBe(visit.node.type);
          expect(visit.params).toEqual(paramsOf(visit.node));
          if (typeof visit.node.params === 'object' && visit.node.params !== null && !Array.isArray(visit.node.params)) expect(visit.params).toBe(visit.node.params);
        }
        // Each llm step's callback action comes right after it, pointing to its step.
        for (const [index, visit] of visits.entries()) if (visit.parent) expect(visits[index - 1]).toBe(visit.parent);
        // Each visit's pointer leads to its node in the request.
        const request = { query: { actions } };
        for (const visit of allActions(request.query)) expect(valueAtPointer(request, visit.pointer)).toBe(visit.node);
      }),
      { numRuns: 500 },
    );
  });
});
