/**
 * Joins conditions into one group by their connectors: `and` binds tighter than `or` ("A and B or C"
 * is any of [all of [A, B], C]); a comma takes the next explicit connector of its run ("A, B or C" is
 * any of the three). Nested groups of the same kind are flattened.
 */
import type { ConditionGroup, ConditionNode } from '@eql/core';

/** A condition and the connector before it. */
export interface Joined {
  node: ConditionNode;
  connector?: 'and' | 'or' | 'comma';
}

/** One group from conditions in message order; the first connector is ignored. */
export function joinConditions(items: readonly Joined[]): ConditionGroup | undefined {
  if (items.length === 0) return undefined;
  const connectors = items.map((item) => item.connector);
  for (let index = 1; index < connectors.length; index += 1) {
    if (connectors[index] === 'comma' || connectors[index] === undefined) connectors[index] = nextExplicit(connectors, index);
  }
  const runs: ConditionNode[][] = [[]];
  items.forEach((item, index) => {
    if (index > 0 && connectors[index] === 'or') runs.push([]);
    (runs[runs.length - 1] as ConditionNode[]).push(item.node);
  });
  const ands = runs.map((run) => (run.length === 1 ? (run[0] as ConditionNode) : group('AND', run)));
  return ands.length === 1 ? asGroup(ands[0] as ConditionNode) : group('OR', ands);
}

function nextExplicit(connectors: ReadonlyArray<Joined['connector']>, from: number): 'and' | 'or' {
  for (let index = from + 1; index < connectors.length; index += 1) {
    const connector = connectors[index];
    if (connector === 'and' || connector === 'or') return connector;
  }
  return 'and';
}

/** A group of the given kind, with members of the same kind (and no holdFor) flattened into it. */
export function group(kind: 'AND' | 'OR', members: readonly ConditionNode[]): ConditionGroup {
  const flat: ConditionNode[] = [];
  for (const member of members) {
    const inner = kind === 'AND' ? (member as { AND?: ConditionNode[] }).AND : (member as { OR?: ConditionNode[] }).OR;
    if (Array.isArray(inner) && (member as { holdFor?: string }).holdFor === undefined) flat.push(...inner);
    else flat.push(member);
  }
  const list = flat as [ConditionNode, ...ConditionNode[]];
  return kind === 'AND' ? { AND: list } : { OR: list };
}

/** A condition as the root group: a group stays, a leaf becomes all of [leaf]. */
export function asGroup(node: ConditionNode): ConditionGroup {
  if ('AND' in node || 'OR' in node) return node;
  return { AND: [node] };
}
