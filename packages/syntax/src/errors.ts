import type { SourceRange } from './source-map/types.js';

/**
 * A problem of the text form itself: a character the lexer does not know, a token the grammar does
 * not expect there, or a construct the builder cannot turn into a request (an unknown measure, a
 * parameter given twice). Problems of the request (a wrong value, a missing property) are the
 * validator's: they come from `validate()` of `@eql/core`, placed with the source map.
 */
export interface SyntaxIssue {
  message: string;
  range: SourceRange;
  /** The repair the message names, when it is certain (a misspelled word, a unit written otherwise): editors offer it as a quick fix. */
  fix?: SyntaxFix;
}

/** One text edit that repairs a syntax issue: replace `range` with `text` (an empty range inserts). */
export interface SyntaxFix {
  /** What the fix does, for a menu: `Change 'notfy' to 'notify'`. */
  title: string;
  range: SourceRange;
  text: string;
}
