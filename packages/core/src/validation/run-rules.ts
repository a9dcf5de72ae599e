import type { ActionVisit, GroupVisit, LeafVisit } from '../language/query-walk.js';
import type { Rule, RuleContext } from './rule.js';

type RequestCheck = (context: RuleContext) => void;
type GroupCheck = (group: GroupVisit, context: RuleContext) => void;
type LeafCheck = (leaf: LeafVisit, context: RuleContext) => void;
type ActionCheck = (action: ActionVisit, context: RuleContext) => void;

/**
 * A list of rules sorted once by the parts they look at, so that visiting a part costs one lookup: a
 * leaf whose source some rule listed gets the checks of the rules that asked for every leaf, then those
 * of the rules that listed its source, each in rule order; any other leaf gets the former only.
 * Actions likewise, by type.
 */
export interface RuleDispatch {
  readonly request: readonly RequestCheck[];
  readonly group: readonly GroupCheck[];
  readonly leafBySource: ReadonlyMap<string, readonly LeafCheck[]>;
  readonly leafAny: readonly LeafCheck[];
  readonly actionByType: ReadonlyMap<string, readonly ActionCheck[]>;
  readonly actionAny: readonly ActionCheck[];
}

/** Per key, the checks for every key followed by those of the rules that listed the key, each in rule order. */
function checksByKey<T>(entries: ReadonlyArray<{ keys: readonly string[] | '*'; check: T }>): { byKey: Map<string, T[]>; any: T[] } {
  const any = entries.flatMap(({ keys, check }) => (keys === '*' ? [check] : []));
  const byKey = new Map<string, T[]>();
  for (const { keys, check } of entries) {
    if (keys === '*') continue;
    for (const key of keys) {
      const checks = byKey.get(key) ?? [...any];
      checks.push(check);
      byKey.set(key, checks);
    }
  }
  return { byKey, any };
}

/** Sorts rules by the parts they look at (see {@link RuleDispatch}); done once per list of rules. */
export function dispatchRules(rules: readonly Rule[]): RuleDispatch {
  const leaves = checksByKey(rules.flatMap((rule) => (rule.leaf ? [{ keys: rule.leaf.sources, check: rule.leaf.check }] : [])));
  const actions = checksByKey(rules.flatMap((rule) => (rule.action ? [{ keys: rule.action.types, check: rule.action.check }] : [])));
  return {
    request: rules.flatMap((rule) => (rule.request ? [rule.request] : [])),
    group: rules.flatMap((rule) => (rule.group ? [rule.group] : [])),
    leafBySource: leaves.byKey,
    leafAny: leaves.any,
    actionByType: actions.byKey,
    actionAny: actions.any,
  };
}

/** Visits each part of the query once and hands it to the rules that asked for that kind of part. */
export function runRules(dispatch: RuleDispatch, context: RuleContext): void {
  for (const check of dispatch.request) check(context);
  const { groups, leaves, actions } = context;
  if (dispatch.group.length > 0) for (const group of groups) for (const check of dispatch.group) check(group, context);
  for (const leaf of leaves) {
    const source = leaf.source;
    const checks = (typeof source === 'string' ? dispatch.leafBySource.get(source) : undefined) ?? dispatch.leafAny;
    for (const check of checks) check(leaf, context);
  }
  for (const action of actions) {
    const type = action.type;
    const checks = (typeof type === 'string' ? dispatch.actionByType.get(type) : undefined) ?? dispatch.actionAny;
    for (const check of checks) check(action, context);
  }
}
