import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';

/** What a token type is called in messages: its label (`'of'`, `a number`) or its name. */
export function describeType(type: TokenType): string {
  return type.LABEL ?? type.name;
}

/** The token that was found, quoted, or "the end of the text". */
export function describeToken(token: IToken | undefined): string {
  if (token === undefined || token.tokenType === EOF) return 'the end of the text';
  const image = token.image.length > 30 ? `${token.image.slice(0, 29)}…` : token.image;
  return token.tokenType.name.startsWith('Kw_') ? `the keyword '${image}'` : `'${image}'`;
}

function after(previous: IToken | undefined): string {
  if (previous === undefined || previous.tokenType === EOF || Number.isNaN(previous.startOffset)) return '';
  const image = previous.image.length > 30 ? `${previous.image.slice(0, 29)}…` : previous.image;
  return ` after '${image}'`;
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
    return `expected ${label}${after(previous)}, found ${describeToken(actual)}${keywordHint(label, actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    expect(firstRedundant, []);
    return `unexpected ${describeToken(firstRedundant)}: expected another action, a clause (title, description, expires in, repeat after) or the end of the text`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, previous, customUserDescription }) {
    expect(actual[0], expectedPathsPerAlt.flatMap((paths) => paths.flatMap((path) => (path[0] ? [path[0]] : []))));
    const labels = expectedPathsPerAlt.flatMap((paths) => paths.map((path) => (path[0] ? describeType(path[0]) : 'nothing')));
    const expected = customUserDescription ?? oneOf(labels);
    return `expected ${expected}${after(previous)}, found ${describeToken(actual[0])}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, previous, customUserDescription }) {
    expect(actual[0], expectedIterationPaths.flatMap((path) => (path[0] ? [path[0]] : [])));
    const labels = expectedIterationPaths.map((path) => (path[0] ? describeType(path[0]) : 'nothing'));
    return `expected at least one ${customUserDescription ?? oneOf(labels)}${after(previous)}, found ${describeToken(actual[0])}`;
  },
};
