import { joinPointer } from '@eql/core';
import { type CstNode, type IToken, tokenMatcher } from 'chevrotain';
import * as T from '../lexer/tokens.js';
import { MEASURES, nearestMeasure } from '../language/measures.js';
import type { BuildContext, JsonObject, JsonValue } from './context.js';
import { child, children, type Span, spanOf, token, unionAll } from './cst.js';
import { addOptions } from './options.js';
import { durationValue, nameValue, numberValue, stringValue } from './values.js';

/** `when …`: the top-level group, or a single condition standing for `{"AND": [condition]}`. */
export function buildConditions(context: BuildContext, node: CstNode | undefined, pointer: string): JsonObject | undefined {
  const when = token(node, 'keyword');
  context.line(pointer, unionAll(spanOf(when), spanOf(node)));
  const top = child(node, 'group');
  if (top !== undefined) {
    const group = buildGroup(context, top, pointer);
    context.record(pointer, spanOf(top), spanOf(when));
    return group;
  }
  const single = child(node, 'condition');
  const condition = single && buildCondition(context, single, joinPointer(pointer, 'AND', 0));
  const span = spanOf(single);
  context.record(pointer, span, spanOf(when));
  context.record(joinPointer(pointer, 'AND'), span);
  return { AND: condition === undefined ? [] : [condition] };
}

/** `all of [ … ] [for 5m]` / `any of [ … ]`. */
function buildGroup(context: BuildContext, node: CstNode, pointer: string): JsonObject | undefined {
  const head = child(node, 'head');
  const kind = token(head, 'kind');
  if (kind === undefined) return undefined;
  const key = tokenMatcher(kind, T.All) ? 'AND' : 'OR';
  const members = buildMembers(context, child(node, 'members'), joinPointer(pointer, key));
  const group: JsonObject = { [key]: members };
  context.record(joinPointer(pointer, key), unionAll(spanOf(token(node, 'open')), spanOf(child(node, 'members')), spanOf(token(node, 'close'))) ?? spanOf(head), spanOf(head));
  addHoldFor(context, child(node, 'holdFor'), group, pointer);
  return group;
}

function buildMembers(context: BuildContext, node: CstNode | undefined, pointer: string): JsonValue[] {
  const members: JsonValue[] = [];
  for (const member of children(node, 'member')) {
    const at = joinPointer(pointer, members.length);
    const group = child(member, 'group');
    const condition = child(member, 'condition');
    const built = group ? buildGroup(context, group, at) : condition ? buildCondition(context, condition, at) : undefined;
    if (built === undefined) continue;
    context.record(at, spanOf(member));
    context.line(at, spanOf(member));
    members.push(built);
  }
  return members;
}

function addHoldFor(context: BuildContext, node: CstNode | undefined, target: JsonObject, pointer: string): void {
  const value = token(node, 'value');
  if (value === undefined) return;
  context.put(target, pointer, 'holdFor', durationValue(context, value), spanOf(value), spanOf(token(node, 'keyword')));
}

function buildCondition(context: BuildContext, node: CstNode, pointer: string): JsonObject | undefined {
  const condition: JsonObject = {};
  let built = false;
  const measured = child(node, 'measured');
  const tweet = child(node, 'tweet');
  const news = child(node, 'news');
  const llm = child(node, 'llm');
  const cronAt = child(node, 'cronAt');
  const cronEvery = child(node, 'cronEvery');
  if (measured) built = buildMeasured(context, measured, condition, pointer);
  else if (tweet) built = buildSemantic(context, tweet, condition, pointer, 'tweet');
  else if (news) built = buildSemantic(context, news, condition, pointer, 'news');
  else if (llm) built = buildSemantic(context, llm, condition, pointer, 'llm');
  else if (cronAt) built = buildCron(context, cronAt, condition, pointer, 'once', 'at');
  else if (cronEvery) built = buildCron(context, cronEvery, condition, pointer, 'every', 'period');
  if (!built) return undefined;
  addHoldFor(context, child(node, 'holdFor'), condition, pointer);
  const name = token(node, 'name');
  if (name !== undefined) context.put(condition, pointer, 'name', nameValue(context, name), spanOf(name), spanOf(token(node, 'as')));
  context.record(pointer, spanOf(node));
  return condition;
}

/** What a measure can be, for an unknown one: the price words, then the indicators (too many to list). */
const MEASURE_HINT = `price, change, high, low, volume or one of ${[...MEASURES.values()].filter((series) => series.source === 'ta').length} indicators such as rsi, ema, macd_value, bbands_upper, vwap or supertrend (completion lists them all)`;

/** `<measure> of <symbol> [over <period>] [(options)]` into source, method and args. */
function buildSubject(context: BuildContext, node: CstNode | undefined, target: JsonObject, pointer: string): boolean {
  const measure = token(node, 'measure');
  if (measure === undefined) return false;
  const series = MEASURES.get(measure.image);
  if (series === undefined) {
    const near = nearestMeasure(measure.image);
    context.error(
      `unknown measure '${measure.image}'${near ? ` (did you mean '${near}'?)` : ''}; expected ${MEASURE_HINT}`,
      spanOf(measure),
      near ? { title: `Change '${measure.image}' to '${near}'`, text: near } : undefined,
    );
    return false;
  }
  target.source = series.source;
  target.method = series.method;
  context.record(joinPointer(pointer, 'source'), spanOf(measure));
  context.record(joinPointer(pointer, 'method'), spanOf(measure));
  const args: JsonObject = {};
  const argsPointer = joinPointer(pointer, 'args');
  const symbol = token(node, 'symbol');
  if (symbol !== undefined) context.put(args, argsPointer, 'symbol', nameValue(context, symbol), spanOf(symbol), spanOf(token(node, 'Kw_of')));
  const period = token(node, 'period');
  if (period !== undefined) context.put(args, argsPointer, 'period', durationValue(context, period), spanOf(period), spanOf(token(node, 'over')));
  const options = child(node, 'options');
  addOptions(context, options, args, argsPointer);
  target.args = args;
  context.record(argsPointer, unionAll(spanOf(symbol), spanOf(period), spanOf(options)) ?? spanOf(measure));
  return true;
}

function operatorOf(node: CstNode | undefined): { value: string; span: Span | undefined } | undefined {
  const comparison = token(node, 'comparison');
  if (comparison !== undefined) return { value: comparison.image, span: spanOf(comparison) };
  const crosses = token(node, 'crosses');
  const direction = token(node, 'direction');
  if (crosses === undefined || direction === undefined) return undefined;
  return { value: `crosses_${direction.image}`, span: unionAll(spanOf(crosses), spanOf(direction)) };
}

function buildMeasured(context: BuildContext, node: CstNode, condition: JsonObject, pointer: string): boolean {
  if (!buildSubject(context, child(node, 'subject'), condition, pointer)) return false;
  const operator = operatorOf(child(node, 'operator'));
  if (operator !== undefined) context.put(condition, pointer, 'operator', operator.value, operator.span);
  const operand = child(node, 'operand');
  const number = token(operand, 'number');
  const live = child(operand, 'live');
  if (number !== undefined) {
    context.put(condition, pointer, 'value', numberValue(context, number), spanOf(number));
  } else if (live !== undefined) {
    const value: JsonObject = {};
    const valuePointer = joinPointer(pointer, 'value');
    if (buildSubject(context, live, value, valuePointer)) context.put(condition, pointer, 'value', value, spanOf(live));
  }
  return true;
}

/** tweet, news and llm conditions: quoted text, options, and an optional `with confidence <op> <n>`. */
function buildSemantic(context: BuildContext, node: CstNode, condition: JsonObject, pointer: string, source: 'tweet' | 'news' | 'llm'): boolean {
  const keyword = token(node, 'keyword');
  condition.source = source;
  context.record(joinPointer(pointer, 'source'), spanOf(keyword));
  const method = token(node, 'method');
  if (method !== undefined) context.put(condition, pointer, 'method', method.image, spanOf(method));
  const args: JsonObject = {};
  const argsPointer = joinPointer(pointer, 'args');
  const username = token(node, 'username');
  if (username !== undefined) context.put(args, argsPointer, 'username', accountValue(context, username), spanOf(username), spanOf(token(node, 'Kw_by')));
  const text = token(node, 'text');
  if (text !== undefined) context.put(args, argsPointer, 'text', stringValue(context, text), spanOf(text), spanOf(token(node, 'Kw_about')));
  const query = token(node, 'query');
  if (query !== undefined) context.put(args, argsPointer, 'query', stringValue(context, query), spanOf(query));
  const period = token(node, 'period');
  if (period !== undefined) context.put(args, argsPointer, 'period', durationValue(context, period), spanOf(period), spanOf(token(node, 'Kw_every')));
  const options = child(node, 'options');
  addOptions(context, options, args, argsPointer);
  condition.args = args;
  context.record(argsPointer, unionAll(spanOf(username), spanOf(text), spanOf(query), spanOf(period), spanOf(options)) ?? spanOf(keyword));
  const test = child(node, 'test');
  if (test !== undefined) {
    const testKey = unionAll(spanOf(token(test, 'Kw_with')), spanOf(token(test, 'Kw_confidence')));
    const operator = operatorOf(child(test, 'operator'));
    if (operator !== undefined) context.put(condition, pointer, 'operator', operator.value, operator.span, testKey);
    const value = token(test, 'value');
    if (value !== undefined) context.put(condition, pointer, 'value', numberValue(context, value), spanOf(value), testKey);
  }
  return true;
}

/** `@name` is the account `name`; a quoted string is taken as written. */
function accountValue(context: BuildContext, account: IToken): string {
  if (tokenMatcher(account, T.Handle)) return account.image.slice(1);
  return nameValue(context, account);
}

function buildCron(context: BuildContext, node: CstNode, condition: JsonObject, pointer: string, method: 'once' | 'every', field: 'at' | 'period'): boolean {
  const keyword = token(node, 'keyword');
  condition.source = 'cron';
  condition.method = method;
  context.record(joinPointer(pointer, 'source'), spanOf(keyword));
  context.record(joinPointer(pointer, 'method'), spanOf(keyword));
  const args: JsonObject = {};
  const argsPointer = joinPointer(pointer, 'args');
  const value = token(node, field);
  if (value !== undefined) {
    const parsed = field === 'at' ? nameValue(context, value) : durationValue(context, value);
    context.put(args, argsPointer, field, parsed, spanOf(value), spanOf(keyword));
  }
  const options = child(node, 'options');
  addOptions(context, options, args, argsPointer);
  condition.args = args;
  context.record(argsPointer, unionAll(spanOf(value), spanOf(options)) ?? spanOf(keyword));
  return true;
}
