/** JSON Pointers (RFC 6901): how every diagnostic names the place it is about. */

/** Escapes one reference token of a JSON pointer (`~` as `~0`, `/` as `~1`); a number is an array index. */
export function escapePointerToken(token: string | number): string {
  if (typeof token === 'number') return String(token);
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Appends reference tokens, escaped, to a JSON pointer: `joinPointer('/query', 'actions', 0)` is
 * `/query/actions/0`.
 */
export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  let pointer = base;
  for (const token of tokens) pointer += '/' + escapePointerToken(token);
  return pointer;
}

/** The unescaped reference tokens of a JSON pointer; the empty pointer (the whole document) has none. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  const tokens = pointer.slice(1).split('/');
  if (!pointer.includes('~')) return tokens;
  return tokens.map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at `pointer` inside `document`, or undefined when the path leads nowhere. */
export function valueAtPointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isRecord(node)) node = Object.prototype.hasOwnProperty.call(node, token) ? node[token] : undefined;
    else return undefined;
  }
  return node;
}

function isIndex(token: string): boolean {
  if (token === '' || (token.length > 1 && token.charCodeAt(0) === 48)) return false;
  for (let i = 0; i < token.length; i += 1) {
    const code = token.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

function isIdentifier(token: string): boolean {
  if (token === '') return false;
  for (let i = 0; i < token.length; i += 1) {
    const code = token.charCodeAt(i);
    const letter = (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36;
    if (!letter && (i === 0 || code < 48 || code > 57)) return false;
  }
  return true;
}

/**
 * `/query/conditions/AND/0/args` → `query.conditions.AND[0].args`, the form people read in messages.
 * Scans the pointer once, token by token, without splitting it (it runs for every diagnostic's text).
 */
export function readablePath(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  const length = pointer.length;
  // As in parsePointer: the first character is the leading `/`, and each `/` after it ends a token.
  for (let start = 1; start <= length; ) {
    let end = start;
    let escaped = false;
    for (; end < length; end += 1) {
      const code = pointer.charCodeAt(end);
      if (code === 47) break;
      if (code === 126) escaped = true;
    }
    const raw = pointer.slice(start, end);
    const token = escaped ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    if (isIndex(token)) out += `[${token}]`;
    else if (isIdentifier(token)) out += out === '' ? token : `.${token}`;
    else out += `[${JSON.stringify(token)}]`;
    start = end + 1;
  }
  return out;
}

/** Whether a value is a plain JSON object: an object that is neither null nor an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
