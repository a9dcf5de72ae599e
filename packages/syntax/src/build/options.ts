import { joinPointer } from '@eql/core';
import { type CstNode, type IToken, tokenMatcher } from 'chevrotain';
import type { JsonLiteralPayload } from '../lexer/json-literal.js';
import * as T from '../lexer/tokens.js';
import { EXIT_LEVEL_KEYS } from '../language/parameters.js';
import type { BuildContext, JsonObject, JsonValue } from './context.js';
import { setProperty } from './context.js';
import { child, children, spanOf, token } from './cst.js';
import { nameValue, numberValue, scalarValue, stringValue } from './values.js';

export interface OptionsContext {
  /** Order parameters: `takeProfit 110000` is `{price}`, `stopLoss 5%` is `{percent}`. */
  exitLevels?: boolean;
}

/** Adds the `(key value, …)` of `node` to `target` (the object at `pointer`), reporting repeated keys. */
export function addOptions(context: BuildContext, node: CstNode | undefined, target: JsonObject, pointer: string, options: OptionsContext = {}): void {
  for (const entry of children(node, 'option')) {
    const keyToken = token(entry, 'key');
    if (keyToken === undefined) continue;
    const key = nameValue(context, keyToken);
    const keySpan = spanOf(keyToken);
    const at = joinPointer(pointer, key);
    const scalar = token(entry, 'scalar');
    const literal = token(entry, 'literal');
    const object = child(entry, 'object');
    const array = child(entry, 'array');
    let value: JsonValue | undefined;
    if (scalar !== undefined) {
      if (options.exitLevels === true && EXIT_LEVEL_KEYS.has(key) && (tokenMatcher(scalar, T.NumberLiteral) || tokenMatcher(scalar, T.Percent))) {
        const field = tokenMatcher(scalar, T.Percent) ? 'percent' : 'price';
        value = { [field]: numberValue(context, scalar) };
        context.record(joinPointer(at, field), spanOf(scalar));
      } else if (tokenMatcher(scalar, T.Percent)) {
        context.error(`a percentage only fits takeProfit, stopLoss and trailingStop of an order; write ${key} ${scalar.image.slice(0, -1)}`, spanOf(scalar));
        continue;
      } else {
        value = scalarValue(context, scalar);
      }
    } else if (literal !== undefined) {
      value = literalValue(context, literal, at);
    } else if (object !== undefined) {
      value = jsonObject(context, object, at);
    } else if (array !== undefined) {
      value = jsonArray(context, array, at);
    }
    if (value === undefined) continue;
    context.put(target, pointer, key, value, spanOf(scalar ?? literal ?? object ?? array), keySpan);
  }
}

/** The value the lexer read from a well-formed JSON literal, with every part of it in the source map. */
function literalValue(context: BuildContext, literal: IToken, pointer: string): JsonValue {
  const payload = literal.payload as JsonLiteralPayload;
  context.recordLiteral(pointer, payload);
  return payload.value;
}

/** A JSON value written inside the text (webhook headers and payload, asset metadata, …). */
export function jsonValue(context: BuildContext, node: CstNode, pointer: string): JsonValue | undefined {
  const scalar = token(node, 'scalar');
  if (scalar !== undefined) return scalarValue(context, scalar);
  const object = child(node, 'object');
  if (object !== undefined) return jsonObject(context, object, pointer);
  const array = child(node, 'array');
  if (array !== undefined) return jsonArray(context, array, pointer);
  return undefined;
}

function jsonObject(context: BuildContext, node: CstNode, pointer: string): JsonObject {
  const result: JsonObject = {};
  for (const member of children(node, 'member')) {
    const keyToken = token(member, 'key');
    const valueNode = child(member, 'value');
    if (keyToken === undefined || valueNode === undefined) continue;
    const key = stringValue(context, keyToken);
    const value = jsonValue(context, valueNode, joinPointer(pointer, key));
    if (value === undefined) continue;
    if (Object.prototype.hasOwnProperty.call(result, key)) {
      context.error(`${JSON.stringify(key)} is given twice`, spanOf(keyToken));
      continue;
    }
    setProperty(result, key, value);
    context.record(joinPointer(pointer, key), spanOf(valueNode), spanOf(keyToken));
  }
  return result;
}

function jsonArray(context: BuildContext, node: CstNode, pointer: string): JsonValue[] {
  const result: JsonValue[] = [];
  for (const item of children(node, 'item')) {
    const value = jsonValue(context, item, joinPointer(pointer, result.length));
    if (value === undefined) continue;
    context.record(joinPointer(pointer, result.length), spanOf(item));
    result.push(value);
  }
  return result;
}
