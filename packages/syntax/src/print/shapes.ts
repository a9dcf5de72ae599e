import { isRecord, joinPointer } from '@eql/core';
import { orderedKeys, TEXT_KEYS } from '../language/parameters.js';
import { keyText, PrintError, quoted, valueText } from './words.js';

export type Obj = Record<string, unknown>;

export function expectObject(value: unknown, pointer: string, what: string): Obj {
  if (!isRecord(value)) throw new PrintError(`${what} must be an object to be written as text`, pointer);
  return value;
}

/** Refuses properties that the text form has no place for. */
export function onlyKeys(value: Obj, allowed: readonly string[], pointer: string, what: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new PrintError(`${what} has no text form for the property ${JSON.stringify(key)}`, joinPointer(pointer, key));
  }
}

export function has(value: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

export function defaultSpelling(key: string, item: unknown, at: string): string {
  return typeof item === 'string' && TEXT_KEYS.has(key) ? quoted(item) : valueText(item, at);
}

/**
 * ` (key value, …)` for the properties of `value` not written in their own place (`positional`);
 * empty when there are none, unless `always` (then `()` says that the object is there).
 */
export function optionsText(
  value: Obj,
  positional: ReadonlySet<string>,
  pointer: string,
  spell: (key: string, item: unknown, at: string) => string = defaultSpelling,
  always = false,
): string {
  const keys = orderedKeys(Object.keys(value).filter((key) => !positional.has(key)));
  if (keys.length === 0) return always ? ' ()' : '';
  const entries = keys.map((key) => {
    const at = joinPointer(pointer, key);
    return `${keyText(key)} ${spell(key, value[key], at)}`;
  });
  return ` (${entries.join(', ')})`;
}
