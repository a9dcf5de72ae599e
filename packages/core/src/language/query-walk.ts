import { isRecord, joinPointer } from '../util/json-pointer.js';

/**
 * Walks the parts of a request that rules look at, tolerating any shape: every visit hands over
 * a plain object and its JSON pointer, never assumes the schema held.
 */

/** An AND or OR group met by {@link collectConditions}, with its members and where it is. */
export interface GroupVisit {
  kind: 'group';
  operator: 'AND' | 'OR';
  node: Record<string, unknown>;
  members: unknown[];
  pointer: string;
  /** 1 for the top-level group. */
  depth: number;
}

/**
 * A single condition (a leaf, not a group) met by the walk, with its JSON pointer and the depth of its group.
 * The fields every rule asks about are read once here: a rule reads them from this one shape, not again
 * from a node whose shape varies from condition to condition (a slow, megamorphic read each time).
 */
export interface LeafVisit {
  kind: 'leaf';
  node: Record<string, unknown>;
  pointer: string;
  /** Depth of the group that holds it. */
  depth: number;
  /** `node.source`. */
  source: unknown;
  /** `node.method`. */
  method: unknown;
  /** `node.args` when it is an object, else an empty (frozen) object. */
  args: Readonly<Record<string, unknown>>;
}

function leafVisit(node: Record<string, unknown>, pointer: string, depth: number): LeafVisit {
  return { kind: 'leaf', node, pointer, depth, source: node.source, method: node.method, args: argsOf(node) };
}

export type ConditionVisit = GroupVisit | LeafVisit;

export function groupOperator(node: Record<string, unknown>): 'AND' | 'OR' | undefined {
  if (Array.isArray(node.AND)) return 'AND';
  if (Array.isArray(node.OR)) return 'OR';
  return undefined;
}

/** Pre-order walk of a condition tree. */
export function walkConditions(
  node: unknown,
  pointer: string,
  visit: (visit: ConditionVisit) => void,
  depth = 1,
): void {
  if (!isRecord(node)) return;
  if (node.source !== undefined) {
    visit(leafVisit(node, pointer, depth - 1));
    return;
  }
  const operator = groupOperator(node);
  if (operator === undefined) return;
  const members = node[operator] as unknown[];
  visit({ kind: 'group', operator, node, members, pointer, depth });
  for (let index = 0; index < members.length; index += 1) {
    walkConditions(members[index], `${pointer}/${operator}/${index}`, visit, depth + 1);
  }
}

export interface ConditionTree {
  groups: GroupVisit[];
  leaves: LeafVisit[];
  /** Set when groups nest deeper than the cap; the walk stopped there. */
  tooDeep: boolean;
}

/** The pointer of a request's conditions, made once (the validator walks every request from there). */
const QUERY_CONDITIONS = '/query/conditions';

/** Caps of nesting up to this walk recursively: the call stack has room for them, and recursion is faster. */
const RECURSIVE_WALK_DEPTH = 256;

/**
 * Every group and leaf condition of a query body, in document order, from one walk; it stops at
 * `depthCap`. Under a low cap (the validator's) the walk recurses; under a higher one it keeps its own
 * stack, so hostile nesting cannot exhaust the call stack.
 */
export function collectConditions(query: unknown, queryPointer = '/query', depthCap = Infinity): ConditionTree {
  const tree: ConditionTree = { groups: [], leaves: [], tooDeep: false };
  if (!isRecord(query)) return tree;
  if (depthCap <= RECURSIVE_WALK_DEPTH) {
    collectRecursively(query.conditions, queryPointer === '/query' ? QUERY_CONDITIONS : `${queryPointer}/conditions`, 1, depthCap, tree);
    return tree;
  }
  // Three parallel stacks rather than a stack of tuples: no allocation per member.
  const nodes: unknown[] = [query.conditions];
  const pointers: string[] = [`${queryPointer}/conditions`];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const pointer = pointers.pop() as string;
    const depth = depths.pop() as number;
    const group = collectNode(node, pointer, depth, depthCap, tree);
    if (tree.tooDeep) return tree;
    if (group === undefined) continue;
    const { members, operator } = group;
    const memberPointer = `${pointer}/${operator}/`;
    for (let index = members.length - 1; index >= 0; index -= 1) {
      nodes.push(members[index]);
      pointers.push(memberPointer + index);
      depths.push(depth + 1);
    }
  }
  return tree;
}

/**
 * Puts `node` into `tree`: a leaf, or a group, which it returns (its members are the walk's to visit);
 * anything else is skipped, and a group at `depthCap` sets `tooDeep` instead.
 */
function collectNode(node: unknown, pointer: string, depth: number, depthCap: number, tree: ConditionTree): GroupVisit | undefined {
  if (!isRecord(node)) return undefined;
  if (node.source !== undefined) {
    tree.leaves.push(leafVisit(node, pointer, depth - 1));
    return undefined;
  }
  const operator = groupOperator(node);
  if (operator === undefined) return undefined;
  if (depth >= depthCap) {
    tree.tooDeep = true;
    return undefined;
  }
  const group: GroupVisit = { kind: 'group', operator, node, members: node[operator] as unknown[], pointer, depth };
  tree.groups.push(group);
  return group;
}

/** The recursive walk of {@link collectConditions}, from `node` at `depth`, into `tree`. */
function collectRecursively(node: unknown, pointer: string, depth: number, depthCap: number, tree: ConditionTree): void {
  const group = collectNode(node, pointer, depth, depthCap, tree);
  if (group === undefined) return;
  const { members, operator } = group;
  const memberPointer = `${pointer}/${operator}/`;
  for (let index = 0; index < members.length && !tree.tooDeep; index += 1) {
    collectRecursively(members[index], memberPointer + index, depth + 1, depthCap, tree);
  }
}

/** Every leaf condition of a query body, with its pointer. */
export function leafConditions(query: unknown, queryPointer = '/query'): LeafVisit[] {
  return collectConditions(query, queryPointer).leaves;
}

/** An action met by {@link allActions}: a step of `actions` or an llm step's callback action, with its JSON pointer. */
export interface ActionVisit {
  /** The action object: a step of `actions`, or the action of an llm step's callback. */
  node: Record<string, unknown>;
  pointer: string;
  /** `node.type` (read once, as {@link LeafVisit}'s fields are). */
  type: unknown;
  /** `node.params` when it is an object, else an empty (frozen) object. */
  params: Readonly<Record<string, unknown>>;
  /** For a callback action, the llm step that owns it. */
  parent?: ActionVisit;
}

/** Every action of a query body, each llm callback action right after its step. */
export function allActions(query: unknown, queryPointer = '/query'): ActionVisit[] {
  const visits: ActionVisit[] = [];
  if (!isRecord(query) || !Array.isArray(query.actions)) return visits;
  const actions = query.actions as unknown[];
  const stepPointer = `${queryPointer}/actions/`;
  for (let index = 0; index < actions.length; index += 1) {
    const action = actions[index];
    if (!isRecord(action)) continue;
    const step = actionVisit(action, stepPointer + index, undefined);
    visits.push(step);
    const callback = callbackActionOf(action);
    if (callback) visits.push(actionVisit(callback, `${step.pointer}/params/callback/action`, step));
  }
  return visits;
}

function actionVisit(node: Record<string, unknown>, pointer: string, parent: ActionVisit | undefined): ActionVisit {
  const visit: ActionVisit = { node, pointer, type: node.type, params: paramsOf(node) };
  if (parent) visit.parent = parent;
  return visit;
}

export function callbackActionOf(action: Record<string, unknown>): Record<string, unknown> | undefined {
  if (action.type !== 'llm' || !isRecord(action.params) || !isRecord(action.params.callback)) return undefined;
  const callbackAction = action.params.callback.action;
  return isRecord(callbackAction) ? callbackAction : undefined;
}

/** Fields of a node that has none (no `args`, no `params`): one shared frozen object, nothing allocated. */
const NO_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({});

/** An action's `params` when it is an object, else an empty (frozen) object. */
export function paramsOf(action: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const params = action.params;
  return isRecord(params) ? params : NO_FIELDS;
}

/** A condition's `args` when it is an object, else an empty (frozen) object. */
export function argsOf(condition: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const args = condition.args;
  return isRecord(args) ? args : NO_FIELDS;
}

/**
 * Nesting depth of condition groups, counted without recursion so that hostile input cannot
 * exhaust the stack. Stops counting at `cap`.
 */
export function groupDepth(conditions: unknown, cap = Infinity): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[conditions, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (!isRecord(node) || node.source !== undefined) continue;
    const operator = groupOperator(node);
    if (operator === undefined) continue;
    deepest = Math.max(deepest, depth);
    if (deepest >= cap) return deepest;
    for (const member of node[operator] as unknown[]) stack.push([member, depth + 1]);
  }
  return deepest;
}

export { joinPointer };
