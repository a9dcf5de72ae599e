import { createTokenInstance, EOF, tokenMatcher, type CstNode, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import { isRealToken } from '../build/cst.js';
import type { SyntaxFix, SyntaxIssue } from '../errors.js';
import { MEASURES } from '../language/measures.js';
import * as T from '../lexer/tokens.js';
import { describeToken, expectedAt } from '../parser/error-messages.js';
import { parseTokens } from '../parser/parser.js';
import type { LineIndex } from '../source-map/line-index.js';
import { nearestWord } from './spelling.js';

/**
 * One message per mistake, and the rest of the document still read. The parser (Chevrotain, with its
 * own single-token recovery) runs; its first error is explained, and where the mistake is known (a
 * misspelled keyword, `and` between conditions, a missing `then`, a percentage as a threshold, words
 * the parser could not place) the tokens are repaired as the message says and the parse runs again.
 * Further errors on a line already reported are the same mistake seen again and are dropped. A
 * document has few mistakes, so the extra parses cost little, and a clean document parses once.
 */

/** What {@link parseWithRecovery} gives: the parse of the repaired tokens, the issues, and the lines they are on. */
export interface RecoveredParse {
  cst: CstNode;
  /** The tokens after the repairs (for the builder and the formatter). */
  tokens: IToken[];
  issues: SyntaxIssue[];
  /** Lines (1-based) where an error was left to the parser's own recovery: what was built there is unsure. */
  unsureLines: Set<number>;
  /** Lines with an issue of the parser, repaired or not. */
  reportedLines: Set<number>;
}

/** At most this many repairs (each a parse) per document; what is left after them is reported as the parser found it. */
const MAX_REPAIRS = 32;

/** Words that start a line of the text form: a clause, a condition, a group or an action. */
const LINE_START_WORDS = ['when', 'then', 'title', 'description', 'expires', 'repeat', 'notify', 'webhook', 'bot', 'llm', 'market', 'limit', 'tweet', 'news', 'every', 'at', 'all', 'any'];
/** Every keyword but the JSON literals: what may be meant where the parser could not place a word. */
const ANY_KEYWORD = [...T.KEYWORDS].filter((word) => word !== 'true' && word !== 'false' && word !== 'null');
const KEYWORD_TYPE = new Map<string, TokenType>(T.KEYWORD_TOKENS.map((type) => [type.name.slice('Kw_'.length), type]));
const ACTION_STARTERS = new Set<TokenType>([T.Notify, T.Webhook, T.Bot, T.Market, T.Limit]);
const JOIN_WORDS: Record<string, 'all' | 'any'> = { and: 'all', or: 'any' };

type Repair = (tokens: IToken[]) => IToken[];

interface Explained {
  issue: SyntaxIssue;
  repair?: Repair;
  /** The line the mistake is on. */
  line: number;
}

/** Parses `tokens`, repairing known mistakes; see the file's comment. */
export function parseWithRecovery(tokens: IToken[], lines: LineIndex): RecoveredParse {
  let current = tokens;
  const issues: SyntaxIssue[] = [];
  const reportedLines = new Set<number>();
  const unsureLines = new Set<number>();
  for (let round = 0; ; round += 1) {
    expectedAt.clear();
    const parsed = parseTokens(current);
    let repaired: IToken[] | undefined;
    for (const error of parsed.errors) {
      const explained = explain(error, current, lines);
      if (reportedLines.has(explained.line)) continue;
      reportedLines.add(explained.line);
      issues.push(explained.issue);
      if (explained.repair && round < MAX_REPAIRS) {
        repaired = explained.repair(current);
        break;
      }
      unsureLines.add(explained.line);
    }
    if (repaired === undefined) return { cst: parsed.cst, tokens: current, issues, unsureLines, reportedLines };
    current = repaired;
  }
}

/** The token an error is about: the one found, or (at the end, or where recovery inserted a token) the one before. */
function placeOf(error: IRecognitionException): { token: IToken; edge: 'first' | 'last' } | undefined {
  const previous = (error as IRecognitionException & { previousToken?: IToken }).previousToken;
  if (isRealToken(error.token) && error.token.tokenType !== EOF) return { token: error.token, edge: 'first' };
  return isRealToken(previous) ? { token: previous, edge: 'last' } : undefined;
}

/**
 * Where a token is. A JSON literal (a whole payload in one token) is placed at its opening bracket, or
 * at its closing one where the error comes after it, as the grammar reading it token by token would.
 */
function rangeOf(token: IToken | undefined, lines: LineIndex, edge: 'first' | 'last' = 'first') {
  if (token === undefined) return lines.range(lines.text.length, lines.text.length);
  if (token.tokenType !== T.JsonLiteral) return lines.range(token.startOffset, token.startOffset + token.image.length);
  const at = edge === 'first' ? token.startOffset : lastOffsetOf(token);
  return lines.range(at, at + 1);
}

/** The words that head the line of `token`, up to it: its first token, and the one after `when`, `then`, `[` or `,`. */
function lineHeads(tokens: readonly IToken[], token: IToken, lines: LineIndex): IToken[] {
  const line = lines.position(token.startOffset).line;
  let index = tokens.indexOf(token);
  while (index > 0 && lastLineOf(tokens[index - 1] as IToken, lines) === line) index -= 1;
  const heads: IToken[] = [];
  for (let at = index; at < tokens.length; at += 1) {
    const current = tokens[at] as IToken;
    if (lastLineOf(current, lines) !== line || current.startOffset > token.startOffset) break;
    const previous = tokens[at - 1];
    if (at === index || previous?.tokenType === T.When || previous?.tokenType === T.Then || previous?.tokenType === T.LBracket || previous?.tokenType === T.Comma) heads.push(current);
  }
  return heads;
}

/** The offset of a token's last character. */
function lastOffsetOf(token: IToken): number {
  return token.startOffset + Math.max(0, token.image.length - 1);
}

/** The line a token ends on: its own, but the last line of a JSON literal spread over several. */
function lastLineOf(token: IToken, lines: LineIndex): number {
  return lines.position(token.tokenType === T.JsonLiteral ? lastOffsetOf(token) : token.startOffset).line;
}

/** An empty keyword token inserted just before `anchor` (a word the text lacks). */
function keywordAt(anchor: IToken, word: string): IToken {
  return createTokenInstance(KEYWORD_TYPE.get(word) as TokenType, '', anchor.startOffset, anchor.startOffset - 1, NaN, NaN, NaN, NaN);
}

/** The keyword token `word` standing where `original` was. */
function keywordIn(original: IToken, word: string): IToken {
  const type = KEYWORD_TYPE.get(word) as TokenType;
  return createTokenInstance(type, word, original.startOffset, original.endOffset ?? original.startOffset + original.image.length - 1, NaN, NaN, NaN, NaN);
}

/** The quick fix that writes `text` in place of `token`. */
function change(token: IToken, text: string, lines: LineIndex): SyntaxFix {
  return { title: `Change '${token.image}' to '${text}'`, range: rangeOf(token, lines), text };
}

const replaceToken =
  (original: IToken, by: IToken): Repair =>
  (tokens) =>
    tokens.map((token) => (token === original ? by : token));

const insertBefore =
  (anchor: IToken, inserted: IToken): Repair =>
  (tokens) => {
    const index = tokens.indexOf(anchor);
    return index < 0 ? tokens : [...tokens.slice(0, index), inserted, ...tokens.slice(index)];
  };

/**
 * Drops `from` and what follows it on its line. A JSON literal dropped with it takes the lines it spans
 * along: what follows it on its last line goes too, as when the grammar drops its tokens line by line.
 */
const dropRestOfLine =
  (from: IToken, lines: LineIndex): Repair =>
  (tokens) => {
    const line = lines.position(from.startOffset).line;
    let lastLine = line;
    const kept: IToken[] = [];
    for (const token of tokens) {
      if (token.startOffset < from.startOffset) kept.push(token);
      else if (lines.position(token.startOffset).line <= lastLine) {
        lastLine = Math.max(lastLine, lastLineOf(token, lines));
      } else kept.push(token);
    }
    return kept;
  };

/**
 * A percentage where a threshold goes. The fix converts the unit: on a price, a move in percent is the
 * change (`price of ETH > 5%` becomes `change of ETH over 24h > 5`); on a measure that is a percentage or
 * an index already (change, rsi, …), the number is meant as it is (`rsi of BTC 4h > 70%` becomes `> 70`).
 */
function percentThreshold(found: IToken, number: string, tokens: readonly IToken[], lines: LineIndex): SyntaxIssue {
  const range = rangeOf(found, lines);
  const index = tokens.indexOf(found);
  let of = -1;
  for (let at = index - 1; at > 0 && at >= index - 12; at -= 1) {
    if ((tokens[at] as IToken).tokenType === T.Of) {
      of = at;
      break;
    }
  }
  const measure = of > 0 ? (tokens[of - 1] as IToken) : undefined;
  const operator = tokens.slice(of + 1, index).find((token) => tokenMatcher(token, T.Comparison) || token.tokenType === T.Crosses);
  if (measure?.image === 'price' && operator !== undefined && of + 1 < index) {
    const subject = lines.text.slice((tokens[of + 1] as IToken).startOffset, operator.startOffset).trim();
    const comparison = lines.text.slice(operator.startOffset, found.startOffset).trim();
    const message = `'${found.image}' is a percentage, and a price is compared with a plain number: for a move in percent, compare the change (change of ${subject} over 24h ${comparison} ${number})`;
    if (subject.includes('(')) return { message, range };
    const text = `change of ${subject} over 24h ${comparison} ${number}`;
    return { message, range, fix: { title: `Compare the change over 24h: ${text}`, range: lines.range(measure.startOffset, found.startOffset + found.image.length), text } };
  }
  const what = measure === undefined ? 'a threshold is a plain number' : measure.image === 'change' ? 'a change is in percent already' : `${measure.image} is compared with a plain number`;
  return { message: `'${found.image}' is a percentage, and ${what}: write ${number}`, range, fix: { title: `Change '${found.image}' to '${number}'`, range, text: number } };
}

/** The keywords among expected token types. */
function expectedKeywords(types: readonly TokenType[]): string[] {
  return types.filter((type) => type.name.startsWith('Kw_')).map((type) => type.name.slice('Kw_'.length));
}

/** Explains one parser error, with a repair where the mistake is known. */
function explain(error: IRecognitionException, tokens: IToken[], lines: LineIndex): Explained {
  const found = isRealToken(error.token) && error.token.tokenType !== EOF ? error.token : undefined;
  const place = placeOf(error);
  const range = rangeOf(place?.token, lines, place?.edge);
  const line = range.start.line;
  const plain = { issue: { message: error.message, range }, line };
  const expected = found ? (expectedAt.get(found) ?? []) : [];
  // Words after a complete query (Chevrotain reports them as a missing end of input).
  const notAllParsed = error.name === 'NotAllInputParsedException' || (expected.length === 1 && expected[0] === EOF);
  if (notAllParsed && found) plain.issue.message = `unexpected ${describeToken(found)}: expected another action, a clause (title, description, expires in, repeat after) or the end of the text`;

  // A misspelled word at the head of the line: `wen`, `notfy`, `when twet by …`, `expirs`.
  if (found) {
    for (const head of lineHeads(tokens, found, lines)) {
      if (head.tokenType !== T.Identifier || MEASURES.has(head.image)) continue;
      const meant = nearestWord(head.image, LINE_START_WORDS);
      if (meant !== undefined && meant !== head.image) {
        return { issue: { message: `'${head.image}' is not a word of EQL: did you mean '${meant}'?`, range: rangeOf(head, lines), fix: change(head, meant, lines) }, repair: replaceToken(head, keywordIn(head, meant)), line: lines.position(head.startOffset).line };
      }
    }
  }
  if (found) {
    const word = found.image.toLowerCase();
    // `price of BTC > 1 and price of ETH > 2`: conditions are joined by a group.
    const join = JOIN_WORDS[word];
    if (join !== undefined && found.tokenType === T.Identifier) {
      const message =
        join === 'all'
          ? `conditions are not joined with '${found.image}': write all of [ … ] for conditions that must all hold`
          : `conditions are not joined with '${found.image}': write any of [ … ] for conditions of which one must hold`;
      return { issue: { message, range: rangeOf(found, lines) }, repair: dropRestOfLine(found, lines), line };
    }
    // `crosses over 100`: the direction is above or below.
    const before = tokens[tokens.indexOf(found) - 1];
    if (before?.tokenType === T.Crosses && found.tokenType !== T.Above && found.tokenType !== T.Below) {
      // `crosses 70`: the direction is missing, the value is there.
      if (found.tokenType !== T.Identifier && !found.tokenType.name.startsWith('Kw_')) return { ...plain, repair: insertBefore(found, keywordAt(found, 'above')) };
      const meant = nearestWord(found.image, ['above', 'below']);
      const message = meant ? `'${found.image}' is not a direction: did you mean 'crosses ${meant}'?` : `write 'crosses above' or 'crosses below', not 'crosses ${found.image}'`;
      return { issue: { message, range: rangeOf(found, lines), ...(meant && { fix: change(found, meant, lines) }) }, repair: replaceToken(found, keywordIn(found, meant ?? 'above')), line };
    }
    // A threshold written as a percentage or an amount in USD.
    if (expected.includes(T.NumberLiteral) && (found.tokenType === T.Percent || found.tokenType === T.Dollars)) {
      const number = found.image.replace(/[$%]/g, '');
      const repair = replaceToken(found, createTokenInstance(T.NumberLiteral, number, found.startOffset, found.endOffset ?? found.startOffset, NaN, NaN, NaN, NaN));
      if (found.tokenType === T.Dollars) {
        return { issue: { message: `'${found.image}' is an amount in USD, and a threshold is a plain number: write ${number}`, range: rangeOf(found, lines), fix: change(found, number, lines) }, repair, line };
      }
      return { issue: percentThreshold(found, number, tokens, lines), repair, line };
    }
    // An action where the conditions should have ended: `then` is missing.
    if (expected.includes(T.Then) && ACTION_STARTERS.has(found.tokenType)) {
      const at = lines.range(found.startOffset, found.startOffset);
      return { issue: { message: `expected 'then' before the actions, found '${found.image}'`, range: rangeOf(found, lines), fix: { title: "Insert 'then'", range: at, text: 'then ' } }, repair: insertBefore(found, keywordAt(found, 'then')), line };
    }
    // A misspelled keyword where the parser expected one (`price off BTC`, `notify "x" ass n`, `market by`).
    const isKeyword = found.tokenType.name.startsWith('Kw_');
    if (found.tokenType === T.Identifier || isKeyword) {
      const candidates = notAllParsed ? ANY_KEYWORD : expectedKeywords(expected);
      const meant = nearestWord(found.image, candidates.filter((candidate) => candidate !== found.image));
      if (meant !== undefined) {
        const message = isKeyword ? `'${found.image}' does not fit here: did you mean '${meant}'?` : `'${found.image}' is not a word of EQL: did you mean '${meant}'?`;
        return { issue: { message, range: rangeOf(found, lines), fix: change(found, meant, lines) }, repair: replaceToken(found, keywordIn(found, meant)), line };
      }
    }
    // Words the parser could not place after a complete query: dropped to the end of their line, so the lines after are read.
    if (notAllParsed) return { ...plain, repair: dropRestOfLine(found, lines) };
  }
  return plain;
}
