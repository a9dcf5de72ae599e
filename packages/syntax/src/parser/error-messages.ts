import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';
import { JsonLiteral } from '../lexer/tokens.js';

/** What a token type is called in messages: its label (`'of'`, `a number`) or its name. */
export function describeType(type: TokenType): string {
  return type.LABEL ?? type.name;
}

/**
 * The image a message quotes: a JSON literal (one token for a whole payload) is named by the bracket the
 * grammar would have met, its first where it was found, its last where it came before.
 */
function imageOf(token: IToken, edge: 'first' | 'last'): string {
  if (token.tokenType === JsonLiteral) return edge === 'first' ? token.image.charAt(0) : token.image.charAt(token.image.length - 1);
  return token.image.length > 30 ? `${token.image.slice(0, 29)}…` : token.image;
}

/** The token that was found, quoted, or "the end of the text". */
export function describeToken(token: IToken | undefined): string {
  if (token === undefined || token.tokenType === EOF) return 'the end of the text';
  const image = imageOf(token, 'first');
  return token.tokenType.name.startsWith('Kw_') ? `the keyword '${image}'` : `'${image}'`;
}

/** The tokens being parsed: the word before a found token is read from them. */
let input: readonly IToken[] = [];

/** Tells the messages which tokens the parser reads (called before each parse). */
export function setMessageInput(tokens: readonly IToken[]): void {
  input = tokens;
}

/**
 * The token before `actual` in the text. Chevrotain's own `previous` is the last token it consumed, which
 * after its recovery has skipped ahead can be a token after the one found.
 */
function tokenBefore(actual: IToken | undefined, previous: IToken | undefined): IToken | undefined {
  if (input.length === 0) return previous;
  const atEnd = actual === undefined || actual.tokenType === EOF || !Number.isFinite(actual.startOffset);
  let low = atEnd ? input.length : 0;
  let high = input.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((input[middle] as IToken).startOffset < (actual as IToken).startOffset) low = middle + 1;
    else high = middle;
  }
  // Words the recovery inserted (an empty image) are not in the text.
  while (low > 0 && (input[low - 1] as IToken).image === '') low -= 1;
  return low > 0 ? input[low - 1] : undefined;
}

function after(previous: IToken | undefined): string {
  if (previous === undefined || previous.tokenType === EOF || Number.isNaN(previous.startOffset)) return '';
  return ` after '${imageOf(previous, 'last')}'`;
}

function oneOf(labels: readonly string[]): string {
  const unique = [...new Set(labels)];
  if (unique.length <= 1) return unique[0] ?? 'something else';
  return `${unique.slice(0, -1).join(', ')} or ${unique[unique.length - 1] ?? ''}`;
}

/** Keywords that start a clause or an action: found where a name was expected, the name is more likely missing. */
const STRUCTURAL = new Set(['when', 'then', 'title', 'description', 'expires', 'repeat', 'notify', 'webhook', 'bot', 'llm', 'market', 'limit']);

/** A hint for a keyword found where a name was expected: reserved words are written in quotes. */
function keywordHint(expected: string, actual: IToken | undefined): string {
  if (actual === undefined || !actual.tokenType.name.startsWith('Kw_') || STRUCTURAL.has(actual.image)) return '';
  if (!/^(a name|a step id|an account|a chat)/.test(expected)) return '';
  return ` ('${actual.image}' is a reserved word: write "${actual.image}" in quotes to use it as a name)`;
}

/**
 * The token types each error of the last parse expected, by the token found (filled as the parser builds
 * its messages): the recovery reads them to suggest the word meant (`did you mean 'notify'?`).
 */
export const expectedAt = new Map<IToken, readonly TokenType[]>();

/** Remembers what was expected where `actual` was found (the first error at a token wins). */
function expect(actual: IToken | undefined, types: readonly TokenType[]): void {
  if (actual !== undefined && !expectedAt.has(actual)) expectedAt.set(actual, types);
}

/** Messages that name what was expected and what was found, with the word before for context. */
export const errorMessages: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, previous }) {
    expect(actual, [expected]);
    const label = describeType(expected);
    return `expected ${label}${after(tokenBefore(actual, previous))}, found ${describeToken(actual)}${keywordHint(label, actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    expect(firstRedundant, []);
    return `unexpected ${describeToken(firstRedundant)}: expected another action, a clause (title, description, expires in, repeat after) or the end of the text`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, previous, customUserDescription }) {
    expect(actual[0], expectedPathsPerAlt.flatMap((paths) => paths.flatMap((path) => (path[0] ? [path[0]] : []))));
    const labels = expectedPathsPerAlt.flatMap((paths) => paths.map((path) => (path[0] ? describeType(path[0]) : 'nothing')));
    const expected = customUserDescription ?? oneOf(labels);
    return `expected ${expected}${after(tokenBefore(actual[0], previous))}, found ${describeToken(actual[0])}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, previous, customUserDescription }) {
    expect(actual[0], expectedIterationPaths.flatMap((path) => (path[0] ? [path[0]] : [])));
    const labels = expectedIterationPaths.map((path) => (path[0] ? describeType(path[0]) : 'nothing'));
    return `expected at least one ${customUserDescription ?? oneOf(labels)}${after(tokenBefore(actual[0], previous))}, found ${describeToken(actual[0])}`;
  },
};
