import { joinPointer } from '@eql/core';
import { printActions } from './actions.js';
import { printConditions } from './conditions.js';
import { type CommentMap, Out } from './out.js';
import { expectObject, has, onlyKeys, optionsText } from './shapes.js';
import { durationText, PrintError, quoted } from './words.js';

/** Options of {@link printText}. */
export interface PrintOptions {
  /** Comments to place around the lines of the pointers they belong to (the formatter's). */
  comments?: CommentMap;
}

/**
 * The canonical text of a query request: clauses one a line (title, description, when, then,
 * expires in, repeat), group members and actions one a line, indented by two spaces. Every request
 * that validates prints, and parses back to an equal request. Throws `PrintError` (with the JSON
 * pointer) for a value the text form cannot say, such as an unknown property or source.
 */
export function printText(request: unknown, options: PrintOptions = {}): string {
  const out = new Out(options.comments);
  const root = expectObject(request, '', 'the request');
  onlyKeys(root, ['title', 'description', 'query'], '', 'the request');
  for (const key of ['title', 'description'] as const) {
    if (!has(root, key)) continue;
    const value = root[key];
    if (typeof value !== 'string') throw new PrintError(`${key} must be a string to be written as text`, `/${key}`);
    out.line(0, `${key} ${quoted(value)}`, [`/${key}`]);
  }
  if (!has(root, 'query')) throw new PrintError('the request has no query', '');
  const query = expectObject(root.query, '/query', 'the query');
  onlyKeys(query, ['conditions', 'actions', 'expiresIn', 'repeat'], '/query', 'the query');
  if (!has(query, 'conditions')) throw new PrintError('the query has no conditions', '/query');
  if (!has(query, 'actions')) throw new PrintError('the query has no actions', '/query');
  printConditions(out, query.conditions, '/query/conditions');
  printActions(out, query.actions, '/query/actions');
  if (has(query, 'expiresIn')) {
    const value = query.expiresIn;
    if (typeof value !== 'string' && typeof value !== 'number') throw new PrintError('expiresIn must be a duration such as "24h"', '/query/expiresIn');
    out.line(0, `expires in ${durationText(value, '/query/expiresIn')}`, ['/query/expiresIn']);
  }
  if (has(query, 'repeat')) {
    const pointer = '/query/repeat';
    const repeat = expectObject(query.repeat, pointer, 'repeat');
    const cooldown = repeat.cooldown;
    const positional = new Set<string>();
    let text = 'repeat';
    if (typeof cooldown === 'string' || typeof cooldown === 'number') {
      text += ` after ${durationText(cooldown, joinPointer(pointer, 'cooldown'))}`;
      positional.add('cooldown');
    }
    out.line(0, text + optionsText(repeat, positional, pointer), [pointer]);
  }
  return out.text();
}

export { PrintError } from './words.js';
