import type { ActionVisit, GroupVisit, LeafVisit } from '../language/query-walk.js';
import type { Rule, RuleContext } from './rule.js';

type LeafCheck = (leaf: LeafVisit, context: RuleContext) => void;
type ActionCheck = (action: ActionVisit, context: RuleContext) => void;

interface Dispatch {
  request: Array<(context: RuleContext) => void>;
  group: Array<(group: GroupVisit, context: RuleContext) => void>;
  leafBySource: Map<string, LeafCheck[]>;
  leafAny: LeafCheck[];
  actionByType: Map<string, ActionCheck[]>;
  actionAny: ActionCheck[];
}

const dispatchTables = new WeakMap<readonly Rule[], Dispatch>();

function add<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function dispatchOf(rules: readonly Rule[]): Dispatch {
  let dispatch = dispatchTables.get(rules);
  if (dispatch) return dispatch;
  dispatch = { request: [], group: [], leafBySource: new Map(), leafAny: [], actionByType: new Map(), actionAny: [] };
  for (const rule of rules) {
    if (rule.request) dispatch.request.push(rule.request);
    if (rule.group) dispatch.group.push(rule.group);
    if (rule.leaf) {
      if (rule.leaf.sources === '*') dispatch.leafAny.push(rule.leaf.check);
      else for (const source of rule.leaf.sources) add(dispatch.leafBySource, source, rule.leaf.check);
    }
    if (rule.action) {
      if (rule.action.types === '*') dispatch.actionAny.push(rule.action.check);
      else for (const type of rule.action.types) add(dispatch.actionByType, type, rule.action.check);
    }
  }
  dispatchTables.set(rules, dispatch);
  return dispatch;
}

/** Visits each part of the query once and hands it to the rules that asked for that kind of part. */
export function runRules(rules: readonly Rule[], context: RuleContext): void {
  const dispatch = dispatchOf(rules);
  for (const check of dispatch.request) check(context);
  for (const group of context.groups) for (const check of dispatch.group) check(group, context);
  for (const leaf of context.leaves) {
    for (const check of dispatch.leafAny) check(leaf, context);
    const checks = typeof leaf.node.source === 'string' ? dispatch.leafBySource.get(leaf.node.source) : undefined;
    if (checks) for (const check of checks) check(leaf, context);
  }
  for (const action of context.actions) {
    for (const check of dispatch.actionAny) check(action, context);
    const checks = typeof action.node.type === 'string' ? dispatch.actionByType.get(action.node.type) : undefined;
    if (checks) for (const check of checks) check(action, context);
  }
}
