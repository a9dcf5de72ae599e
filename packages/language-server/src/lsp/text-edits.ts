import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { TextEdit } from 'vscode-languageserver-types';

/** One edit that turns the document's text into `next`: the span between their common prefix and suffix. */
export function minimalEdit(document: TextDocument, next: string): TextEdit | undefined {
  const text = document.getText();
  if (text === next) return undefined;
  let start = 0;
  const shorter = Math.min(text.length, next.length);
  while (start < shorter && text.charCodeAt(start) === next.charCodeAt(start)) start += 1;
  let end = 0;
  while (end < shorter - start && text.charCodeAt(text.length - 1 - end) === next.charCodeAt(next.length - 1 - end)) end += 1;
  // Never split a surrogate pair or a CRLF.
  while (start > 0 && isLowSurrogateOrLf(text, start)) start -= 1;
  while (end > 0 && isLowSurrogateOrLf(text, text.length - end)) end -= 1;
  return {
    range: { start: document.positionAt(start), end: document.positionAt(text.length - end) },
    newText: next.slice(start, next.length - end),
  };
}

function isLowSurrogateOrLf(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return (code >= 0xdc00 && code <= 0xdfff) || (code === 10 && text.charCodeAt(index - 1) === 13);
}
