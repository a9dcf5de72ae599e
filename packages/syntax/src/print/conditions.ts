import { isRecord, joinPointer } from '@eql/core';
import { measureOf, MEASURES, takesWindow } from '../language/measures.js';
import { OPERATOR_WORDS } from '../language/parameters.js';
import type { Out } from './out.js';
import { expectObject, has, type Obj, onlyKeys, optionsText } from './shapes.js';
import { accountText, durationText, instantText, nameText, numberText, PrintError, quoted } from './words.js';

/** `when …`: a single condition, or the top-level group with its members below. */
export function printConditions(out: Out, conditions: unknown, pointer: string): void {
  const group = groupParts(conditions, pointer);
  const first = group.members[0];
  const firstPointer = joinPointer(pointer, group.key, 0);
  if (group.key === 'AND' && group.members.length === 1 && group.holdFor === undefined && isCondition(first)) {
    out.line(0, `when ${conditionText(first, firstPointer)}`, [pointer, firstPointer]);
    return;
  }
  if (group.members.length === 0) {
    out.line(0, `when ${group.head} []${holdText(group.holdFor, pointer)}`, [pointer]);
    return;
  }
  const bracketed = group.holdFor !== undefined;
  out.line(0, `when ${group.head}${bracketed ? ' [' : ''}`, [pointer]);
  printMembers(out, group, pointer, 1);
  if (bracketed) out.line(0, `]${holdText(group.holdFor, pointer)}`);
}

interface GroupParts {
  key: 'AND' | 'OR';
  head: string;
  members: unknown[];
  holdFor: unknown;
}

function groupParts(value: unknown, pointer: string): GroupParts {
  const group = expectObject(value, pointer, 'a condition group');
  onlyKeys(group, ['AND', 'OR', 'holdFor'], pointer, 'a condition group');
  const key = has(group, 'AND') ? 'AND' : 'OR';
  if (has(group, 'AND') === has(group, 'OR')) throw new PrintError('a condition group needs exactly one of AND and OR', pointer);
  const members = group[key];
  if (!Array.isArray(members)) throw new PrintError(`${key} must be an array`, joinPointer(pointer, key));
  return { key, head: key === 'AND' ? 'all of' : 'any of', members, holdFor: has(group, 'holdFor') ? group.holdFor : undefined };
}

function isCondition(value: unknown): value is Obj {
  return isRecord(value) && has(value, 'source');
}

function printMembers(out: Out, group: GroupParts, pointer: string, depth: number): void {
  group.members.forEach((member, index) => {
    const at = joinPointer(pointer, group.key, index);
    if (isCondition(member)) out.line(depth, conditionText(member, at), [at]);
    else printGroup(out, member, at, depth);
  });
}

function printGroup(out: Out, value: unknown, pointer: string, depth: number): void {
  const group = groupParts(value, pointer);
  if (group.members.length === 0) {
    out.line(depth, `${group.head} []${holdText(group.holdFor, pointer)}`, [pointer]);
    return;
  }
  out.line(depth, `${group.head} [`, [pointer]);
  printMembers(out, group, pointer, depth + 1);
  out.line(depth, `]${holdText(group.holdFor, pointer)}`);
}

function holdText(holdFor: unknown, pointer: string): string {
  if (holdFor === undefined) return '';
  return ` for ${durationOf(holdFor, joinPointer(pointer, 'holdFor'))}`;
}

function durationOf(value: unknown, pointer: string): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new PrintError('a duration must be a string such as "1h"', pointer);
  return durationText(value, pointer);
}

function stringAt(value: Obj, key: string, pointer: string, what: string): string {
  const item = value[key];
  if (typeof item !== 'string') throw new PrintError(`${what} must be a string to be written as text`, joinPointer(pointer, key));
  return item;
}

/** One condition on one line. */
export function conditionText(condition: Obj, pointer: string): string {
  const source = condition.source;
  let text: string;
  if (source === 'price' || source === 'ta') text = measuredText(condition, pointer);
  else if (source === 'tweet' || source === 'news' || source === 'llm') text = semanticText(condition, pointer, source);
  else if (source === 'cron') text = cronText(condition, pointer);
  else throw new PrintError(`the source ${JSON.stringify(source)} has no text form`, joinPointer(pointer, 'source'));
  return text + holdText(has(condition, 'holdFor') ? condition.holdFor : undefined, pointer) + conditionNameText(condition, pointer);
}

/** ` as <name>` for a named condition. */
function conditionNameText(condition: Obj, pointer: string): string {
  if (!has(condition, 'name')) return '';
  return ` as ${nameText(stringAt(condition, 'name', pointer, 'a condition name'))}`;
}

/** `<measure> of <symbol> [over <period>] [(options)]`, for a condition or a live operand. */
function subjectText(value: Obj, pointer: string): string {
  const measure = measureOf(value.source, value.method);
  if (measure === undefined) {
    throw new PrintError(`${JSON.stringify(value.source)} with method ${JSON.stringify(value.method)} has no text form`, joinPointer(pointer, 'method'));
  }
  const argsPointer = joinPointer(pointer, 'args');
  const args = expectObject(value.args, argsPointer, 'args');
  const symbol = stringAt(args, 'symbol', argsPointer, 'the symbol');
  const series = MEASURES.get(measure);
  const period = args.period;
  const positional = new Set(['symbol']);
  let over = '';
  if (series !== undefined && takesWindow(series) && (typeof period === 'string' || typeof period === 'number')) {
    over = ` over ${durationText(period, joinPointer(argsPointer, 'period'))}`;
    positional.add('period');
  }
  return `${measure} of ${nameText(symbol)}${over}${optionsText(args, positional, argsPointer)}`;
}

function operatorText(value: unknown, pointer: string): string {
  const word = typeof value === 'string' ? OPERATOR_WORDS.get(value) : undefined;
  if (word === undefined) throw new PrintError(`the operator ${JSON.stringify(value)} has no text form`, pointer);
  return word;
}

function measuredText(condition: Obj, pointer: string): string {
  onlyKeys(condition, ['source', 'method', 'args', 'operator', 'value', 'holdFor', 'name'], pointer, 'a price or ta condition');
  if (!has(condition, 'operator') || !has(condition, 'value')) throw new PrintError('a price or ta condition needs an operator and a value to be written as text', pointer);
  const operator = operatorText(condition.operator, joinPointer(pointer, 'operator'));
  const valuePointer = joinPointer(pointer, 'value');
  const value = condition.value;
  let operand: string;
  if (typeof value === 'number') operand = numberText(value, valuePointer);
  else if (isRecord(value)) {
    onlyKeys(value, ['source', 'method', 'args'], valuePointer, 'a live operand');
    operand = subjectText(value, valuePointer);
  } else throw new PrintError('the value must be a number or a live operand', valuePointer);
  return `${subjectText(condition, pointer)} ${operator} ${operand}`;
}

function semanticText(condition: Obj, pointer: string, source: 'tweet' | 'news' | 'llm'): string {
  onlyKeys(condition, source === 'llm' ? ['source', 'method', 'args', 'operator', 'value', 'holdFor', 'name'] : ['source', 'args', 'operator', 'value', 'holdFor', 'name'], pointer, `a ${source} condition`);
  const argsPointer = joinPointer(pointer, 'args');
  const args = expectObject(condition.args, argsPointer, 'args');
  let text: string;
  let positional: string[];
  if (source === 'tweet') {
    text = `tweet by ${accountText(stringAt(args, 'username', argsPointer, 'the username'))} about ${quoted(stringAt(args, 'text', argsPointer, 'the text'))}`;
    positional = ['username', 'text'];
  } else if (source === 'news') {
    text = `news about ${quoted(stringAt(args, 'text', argsPointer, 'the text'))}`;
    positional = ['text'];
  } else {
    let method = '';
    if (has(condition, 'method')) {
      const word = condition.method;
      if (typeof word !== 'string' || nameText(word) !== word) throw new PrintError('the method of an llm condition must be a word such as athena_condition', joinPointer(pointer, 'method'));
      method = ` ${word}`;
    }
    const period = args.period;
    if (typeof period !== 'string' && typeof period !== 'number') throw new PrintError('the period must be a duration such as "1h"', joinPointer(argsPointer, 'period'));
    text = `llm${method} ${quoted(stringAt(args, 'query', argsPointer, 'the query'))} every ${durationText(period, joinPointer(argsPointer, 'period'))}`;
    positional = ['query', 'period'];
  }
  text += optionsText(args, new Set(positional), argsPointer);
  if (has(condition, 'operator') || has(condition, 'value')) {
    const value = condition.value;
    if (!has(condition, 'operator') || typeof value !== 'number') throw new PrintError('a confidence test needs an operator and a number', pointer);
    text += ` with confidence ${operatorText(condition.operator, joinPointer(pointer, 'operator'))} ${numberText(value, joinPointer(pointer, 'value'))}`;
  }
  return text;
}

function cronText(condition: Obj, pointer: string): string {
  onlyKeys(condition, ['source', 'method', 'args', 'holdFor', 'name'], pointer, 'a cron condition');
  const argsPointer = joinPointer(pointer, 'args');
  const args = expectObject(condition.args, argsPointer, 'args');
  if (condition.method === 'once') {
    return `at ${instantText(stringAt(args, 'at', argsPointer, 'the instant'))}${optionsText(args, new Set(['at']), argsPointer)}`;
  }
  if (condition.method === 'every') {
    return `every ${durationOf(args.period, joinPointer(argsPointer, 'period'))}${optionsText(args, new Set(['period']), argsPointer)}`;
  }
  throw new PrintError(`the cron method ${JSON.stringify(condition.method)} has no text form`, joinPointer(pointer, 'method'));
}
