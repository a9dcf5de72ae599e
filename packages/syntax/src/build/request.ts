import type { CstNode } from 'chevrotain';
import type { LineIndex } from '../source-map/line-index.js';
import { buildActions } from './actions.js';
import { buildConditions } from './conditions.js';
import { BuildContext, type JsonObject } from './context.js';
import { child, children, type Span, spanOf, token, unionAll } from './cst.js';
import { addOptions } from './options.js';
import { durationValue, stringValue } from './values.js';

export interface Built {
  /** The request as written, built as far as the tree goes (partial when there were syntax errors). */
  value: JsonObject;
  context: BuildContext;
}

/** Turns the concrete syntax tree of `request` into a query request, its source map and line items. */
export function buildRequest(cst: CstNode, lines: LineIndex): Built {
  const context = new BuildContext(lines);
  const request: JsonObject = {};
  const query: JsonObject = {};
  let querySpan: Span | undefined;

  const whenNode = child(cst, 'when');
  const thenNode = child(cst, 'then');
  query.conditions = buildConditions(context, whenNode, '/query/conditions') ?? { AND: [] };
  query.actions = buildActions(context, thenNode, '/query/actions');
  querySpan = unionAll(spanOf(whenNode), spanOf(thenNode));

  const seen = new Set<string>();
  const once = (name: string, span: Span | undefined): boolean => {
    if (seen.has(name)) {
      context.error(`a second '${name}' clause; a query has one`, span);
      return false;
    }
    seen.add(name);
    return true;
  };

  for (const clause of children(cst, 'clause')) {
    const title = child(clause, 'title');
    const description = child(clause, 'description');
    const expires = child(clause, 'expires');
    const repeat = child(clause, 'repeat');
    if (title || description) {
      const node = (title ?? description) as CstNode;
      const name = title ? 'title' : 'description';
      const keyword = token(node, 'keyword');
      const value = token(node, 'value');
      context.line(`/${name}`, spanOf(node));
      if (!once(name, spanOf(keyword)) || value === undefined) continue;
      request[name] = stringValue(context, value);
      context.record(`/${name}`, spanOf(value), spanOf(keyword));
    } else if (expires) {
      const keyword = unionAll(spanOf(token(expires, 'keyword')), spanOf(token(expires, 'Kw_in')));
      const value = token(expires, 'value');
      context.line('/query/expiresIn', spanOf(expires));
      querySpan = unionAll(querySpan, spanOf(expires));
      if (!once('expires in', keyword) || value === undefined) continue;
      query.expiresIn = durationValue(context, value);
      context.record('/query/expiresIn', spanOf(value), keyword);
    } else if (repeat) {
      const keyword = token(repeat, 'keyword');
      context.line('/query/repeat', spanOf(repeat));
      querySpan = unionAll(querySpan, spanOf(repeat));
      if (!once('repeat', spanOf(keyword))) continue;
      const policy: JsonObject = {};
      const cooldown = token(repeat, 'cooldown');
      if (cooldown !== undefined) context.put(policy, '/query/repeat', 'cooldown', durationValue(context, cooldown), spanOf(cooldown), spanOf(token(repeat, 'Kw_after')));
      addOptions(context, child(repeat, 'options'), policy, '/query/repeat');
      query.repeat = policy;
      context.record('/query/repeat', spanOf(repeat), spanOf(keyword));
    }
  }

  // Properties in the order of the schema, whatever the order of the clauses.
  const ordered: JsonObject = {};
  for (const key of ['conditions', 'actions', 'expiresIn', 'repeat']) {
    const value = query[key];
    if (value !== undefined) ordered[key] = value;
  }
  const result: JsonObject = {};
  if (request.title !== undefined) result.title = request.title;
  if (request.description !== undefined) result.description = request.description;
  result.query = ordered;
  context.record('/query', querySpan);
  context.record('', spanOf(cst) ?? { start: 0, end: 0 });
  return { value: result, context };
}
