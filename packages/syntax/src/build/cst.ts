import type { CstElement, CstNode, IToken } from 'chevrotain';

/** Reading a concrete syntax tree by child label; tokens inserted by error recovery count as missing. */

function isNode(element: CstElement): element is CstNode {
  return 'children' in element;
}

export function isRealToken(token: IToken | undefined): token is IToken {
  return token !== undefined && token.isInsertedInRecovery !== true && Number.isFinite(token.startOffset);
}

export function token(node: CstNode | undefined, label: string): IToken | undefined {
  for (const element of node?.children[label] ?? []) if (!isNode(element) && isRealToken(element)) return element;
  return undefined;
}

export function tokens(node: CstNode | undefined, label: string): IToken[] {
  return (node?.children[label] ?? []).filter((element): element is IToken => !isNode(element) && isRealToken(element));
}

export function child(node: CstNode | undefined, label: string): CstNode | undefined {
  for (const element of node?.children[label] ?? []) if (isNode(element)) return element;
  return undefined;
}

export function children(node: CstNode | undefined, label: string): CstNode[] {
  return (node?.children[label] ?? []).filter(isNode);
}

/** Offsets [start, end) covered by the real tokens of a node, or undefined when it has none. */
export interface Span {
  start: number;
  end: number;
}

const spans = new WeakMap<CstNode, Span | null>();

export function spanOf(element: CstNode | IToken | undefined): Span | undefined {
  if (element === undefined) return undefined;
  if (!isNode(element)) return isRealToken(element) ? { start: element.startOffset, end: element.startOffset + element.image.length } : undefined;
  // The parser tracks node offsets; they are exact unless error recovery inserted a token at an edge.
  const location = element.location;
  if (location && Number.isFinite(location.startOffset) && Number.isFinite(location.endOffset) && location.endOffset !== undefined) {
    return { start: location.startOffset, end: location.endOffset + 1 };
  }
  const cached = spans.get(element);
  if (cached !== undefined) return cached ?? undefined;
  let span: Span | undefined;
  for (const list of Object.values(element.children)) {
    for (const item of list) span = union(span, spanOf(item));
  }
  spans.set(element, span ?? null);
  return span;
}

export function union(a: Span | undefined, b: Span | undefined): Span | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

export function unionAll(...parts: Array<Span | undefined>): Span | undefined {
  let span: Span | undefined;
  for (const part of parts) span = union(span, part);
  return span;
}
