import { HIGHLIGHT_KINDS, highlightTokens } from '@eql/syntax';
import type { SemanticTokens, SemanticTokensLegend } from 'vscode-languageserver-types';
import type { ParsedDocument } from '../workspace/eql-document.js';

/**
 * Semantic tokens of the text form (`textDocument/semanticTokens/full`): keywords, measures, symbols and
 * names, parameters, numbers, strings, operators and comments, from `highlightTokens` of @eql/syntax.
 * JSON documents get none: the editor's JSON grammar colours them.
 */
export interface SemanticTokensProvider {
  /** The legend announced in the server's capabilities. */
  readonly legend: SemanticTokensLegend;
  /** The document's tokens, encoded as LSP wants them (relative lines and columns). */
  semanticTokens(document: ParsedDocument): SemanticTokens;
}

/** The legend: the token types in the order of {@link HIGHLIGHT_KINDS} (standard LSP type names), no modifiers. */
export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = { tokenTypes: [...HIGHLIGHT_KINDS], tokenModifiers: [] };

/** The semantic tokens provider of the server. */
export class DefaultSemanticTokensProvider implements SemanticTokensProvider {
  readonly legend = SEMANTIC_TOKENS_LEGEND;

  semanticTokens(document: ParsedDocument): SemanticTokens {
    if (document.form !== 'text') return { data: [] };
    const { textDocument } = document;
    const data: number[] = [];
    let line = 0;
    let character = 0;
    for (const token of highlightTokens(textDocument.getText())) {
      const start = textDocument.positionAt(token.offset);
      const end = textDocument.positionAt(token.offset + token.length);
      // A token never spans lines in the text form; one that would is cut at its line's end.
      const length = end.line === start.line ? end.character - start.character : token.length;
      data.push(start.line - line, start.line === line ? start.character - character : start.character, length, HIGHLIGHT_KINDS.indexOf(token.kind), 0);
      line = start.line;
      character = start.character;
    }
    return { data };
  }
}
