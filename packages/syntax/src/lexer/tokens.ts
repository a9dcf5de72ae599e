import { createToken, type IToken, Lexer, tokenMatcher, type TokenType } from 'chevrotain';
import { scanJsonLiteral } from './json-literal.js';

/**
 * The tokens of the EQL text form. Keywords are reserved lowercase words; anything else made of
 * letters, digits and `_ . - / :` is an identifier (symbols such as `BTC/USDT:USDT`, step ids,
 * measures such as `rsi`). Token categories group the tokens a position accepts, so a missing value
 * can be recovered as one inserted token and named in one message ("expected a name").
 */

// ------------------------------------------------------------------ categories (abstract tokens)

/** Identifiers and quoted strings: symbols, step ids, exchanges. */
export const Name = createToken({ name: 'Name', pattern: Lexer.NA, label: 'a name' });
/** A step id after `as`: a name, or a keyword that cannot start an action or a clause (`as buy`). */
export const StepName = createToken({ name: 'StepName', pattern: Lexer.NA, label: 'a step id' });
/** Durations such as `24h`, or a quoted string or a number (reported by the validator when wrong). */
export const DurationValue = createToken({ name: 'DurationValue', pattern: Lexer.NA, label: 'a duration such as 1h' });
/** Keys of `(key value, …)`: any word or a quoted string. */
export const OptionKey = createToken({ name: 'OptionKey', pattern: Lexer.NA, label: 'a parameter name' });
/** Single-token values of `(key value, …)`. */
export const ScalarValue = createToken({ name: 'ScalarValue', pattern: Lexer.NA, label: 'a value' });
/** The account of a tweet condition: `@name`, a name or a quoted string. */
export const Account = createToken({ name: 'Account', pattern: Lexer.NA, label: 'an account such as @elonmusk' });
/** The chat of a bot action: `@channel`, a numeric id or a quoted string. */
export const Chat = createToken({ name: 'Chat', pattern: Lexer.NA, label: 'a chat such as @channel or -1001234567890' });
/** The instant of a cron condition: a bare date-time or a quoted string. */
export const Instant = createToken({ name: 'Instant', pattern: Lexer.NA, label: 'a date-time such as 2026-01-01T09:00:00Z' });
/** Every comparison operator token (the two-word `crosses above|below` is a rule). */
export const Comparison = createToken({ name: 'Comparison', pattern: Lexer.NA, label: 'an operator' });

// ------------------------------------------------------------------ trivia

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n\uFEFF]+/, group: Lexer.SKIPPED, line_breaks: true });
export const Comment = createToken({ name: 'Comment', pattern: /#[^\n\r]*/, group: 'comments', label: 'a comment' });

// ------------------------------------------------------------------ literals

/** JSON string syntax; lenient here (unterminated, bad escapes) so the lexer keeps going and the builder reports it. */
export const StringLiteral = createToken({
  name: 'StringLiteral',
  pattern: /"(?:[^"\\\n\r]|\\[^\n\r])*"?/,
  label: 'a quoted string',
  categories: [Name, StepName, DurationValue, OptionKey, ScalarValue, Account, Chat, Instant],
});
export const DateTime = createToken({
  name: 'DateTime',
  pattern: /\d{4}-\d{2}-\d{2}(?:T[0-9:.]*(?:Z|z|[+-]\d{2}(?::?\d{2})?)?)?(?![\w.:+-])/,
  label: 'a date-time such as 2026-01-01T09:00:00Z',
  categories: [ScalarValue, Instant],
});
export const Dollars = createToken({
  name: 'Dollars',
  pattern: /\$-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/,
  label: 'an amount in USD such as $500',
});
export const Percent = createToken({
  name: 'Percent',
  pattern: /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?%/,
  label: 'a percentage such as 10%',
  categories: [ScalarValue],
});
export const NumberLiteral = createToken({
  name: 'NumberLiteral',
  pattern: /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])/,
  label: 'a number',
  categories: [DurationValue, ScalarValue, Chat],
});
export const Duration = createToken({
  name: 'Duration',
  pattern: /\d+[A-Za-z][A-Za-z0-9]*(?![\w.\-/:])/,
  label: 'a duration such as 1h',
  categories: [DurationValue, ScalarValue],
});
export const Handle = createToken({ name: 'Handle', pattern: /@[A-Za-z0-9_]+/, label: 'an @account', categories: [ScalarValue, Account, Chat] });
export const Identifier = createToken({
  name: 'Identifier',
  pattern: /[A-Za-z_][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.-]+)?(?::[A-Za-z0-9_.-]+)?/,
  label: 'a name',
  categories: [Name, StepName, OptionKey, ScalarValue, Account, Chat],
});

// ------------------------------------------------------------------ keywords

/** Words that start an action or a clause: after `as` they end the action, so they are never step ids. */
const STARTERS = new Set(['when', 'then', 'title', 'description', 'expires', 'repeat', 'notify', 'webhook', 'bot', 'llm', 'market', 'limit']);

function keyword(word: string, extra: TokenType[] = []): TokenType {
  return createToken({
    name: `Kw_${word}`,
    pattern: word,
    label: `'${word}'`,
    longer_alt: Identifier,
    categories: [OptionKey, ...(STARTERS.has(word) ? [] : [StepName]), ...extra],
  });
}

export const When = keyword('when');
export const Then = keyword('then');
export const All = keyword('all');
export const Any = keyword('any');
export const Of = keyword('of');
export const For = keyword('for');
export const Over = keyword('over');
export const With = keyword('with');
export const Confidence = keyword('confidence');
export const Crosses = keyword('crosses');
export const Above = keyword('above');
export const Below = keyword('below');
export const Tweet = keyword('tweet');
export const By = keyword('by');
export const About = keyword('about');
export const News = keyword('news');
export const Llm = keyword('llm');
export const Every = keyword('every');
export const At = keyword('at');
export const Notify = keyword('notify');
export const Webhook = keyword('webhook');
export const Bot = keyword('bot');
export const To = keyword('to');
export const Via = keyword('via');
export const Callback = keyword('callback');
export const Market = keyword('market');
export const Limit = keyword('limit');
export const Close = keyword('close');
export const Buy = keyword('buy');
export const Sell = keyword('sell');
export const Order = keyword('order');
export const On = keyword('on');
export const As = keyword('as');
export const Title = keyword('title');
export const Description = keyword('description');
export const Expires = keyword('expires');
export const In = keyword('in');
export const Repeat = keyword('repeat');
export const After = keyword('after');
export const True = keyword('true', [ScalarValue]);
export const False = keyword('false', [ScalarValue]);
export const Null = keyword('null', [ScalarValue]);

export const KEYWORD_TOKENS: readonly TokenType[] = [
  When, Then, All, Any, Of, For, Over, With, Confidence, Crosses, Above, Below, Tweet, By, About, News, Llm, Every, At,
  Notify, Webhook, Bot, To, Via, Callback, Market, Limit, Close, Buy, Sell, Order, On, As, Title, Description, Expires, In,
  Repeat, After, True, False, Null,
];

/** Every reserved word: such a name is written in quotes where a plain name is expected. */
export const KEYWORDS: ReadonlySet<string> = new Set(KEYWORD_TOKENS.map((token) => token.name.slice('Kw_'.length)));

// ------------------------------------------------------------------ common mistakes

// Forms people write that the language does not have. The lexer reads each as one token, so it never
// breaks a word apart; `repairLexicalMistakes` then reports it with the form to write instead and puts
// that form in its place, so the parse goes on as if it had been written right (one message per mistake).

/** `=>`, `=<`, `<>`, `=`, `≥`, `≤`, `≠`: operators of other languages. */
export const MistakeOperator = createToken({ name: 'MistakeOperator', pattern: /=>|=<|<>|=(?!=)|≥|≤|≠/, label: 'an operator of another language' });
/** `'text'`: a string in single quotes. */
export const MistakeSingleQuoted = createToken({ name: 'MistakeSingleQuoted', pattern: /'(?:[^'\\\n\r]|\\[^\n\r])*'/, label: 'a string in single quotes' });
/** `“text”`: a string in typographic quotes (pasted from a document). */
export const MistakeCurlyQuoted = createToken({ name: 'MistakeCurlyQuoted', pattern: /[\u201C\u201D][^\u201C\u201D\n\r]*[\u201C\u201D]/, label: 'a string in typographic quotes' });
/** `https://…` without quotes. */
export const MistakeBareUrl = createToken({ name: 'MistakeBareUrl', pattern: /https?:\/\/[^\s"'()[\]{},]+/, label: 'a URL without quotes' });
/** `2 days`, `30mins`, `1hr`: a duration spelled out. */
export const MistakeSpelledDuration = createToken({
  name: 'MistakeSpelledDuration',
  pattern: /\d+[ \t]*(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?)(?![\w.\-/:])/i,
  label: 'a duration spelled out',
});
/** `1.5h`: a duration with a fraction. */
export const MistakeDecimalDuration = createToken({ name: 'MistakeDecimalDuration', pattern: /\d+\.\d+[smhdw](?![\w.\-/:])/, label: 'a duration with a fraction' });
/** `100k`, `1.5M`, `2B`: a number with a magnitude suffix. */
export const MistakeNumberSuffix = createToken({ name: 'MistakeNumberSuffix', pattern: /\$?-?(?:0|[1-9]\d*)(?:\.\d+)?[kKMbB](?![\w.\-/:])/, label: 'a number with a suffix' });
/** `100,000`: a number with thousands separators (outside parentheses, where a comma separates values). */
export const MistakeThousands = createToken({ name: 'MistakeThousands', pattern: /\$?-?[1-9]\d{0,2}(?:,\d{3})+(?![\d.])/, label: 'a number with thousands separators' });

/** The mistake tokens, each repaired before parsing. */
export const MISTAKE_TOKENS: readonly TokenType[] = [MistakeOperator, MistakeSingleQuoted, MistakeCurlyQuoted, MistakeBareUrl, MistakeSpelledDuration, MistakeDecimalDuration, MistakeNumberSuffix, MistakeThousands];

// ------------------------------------------------------------------ punctuation and operators

export const GreaterEqual = createToken({ name: 'GreaterEqual', pattern: />=/, label: "'>='", categories: [Comparison] });
export const LessEqual = createToken({ name: 'LessEqual', pattern: /<=/, label: "'<='", categories: [Comparison] });
export const Equal = createToken({ name: 'Equal', pattern: /==/, label: "'=='", categories: [Comparison] });
export const NotEqual = createToken({ name: 'NotEqual', pattern: /!=/, label: "'!='", categories: [Comparison] });
export const Greater = createToken({ name: 'Greater', pattern: />/, label: "'>'", categories: [Comparison] });
export const Less = createToken({ name: 'Less', pattern: /</, label: "'<'", categories: [Comparison] });
export const LParen = createToken({ name: 'LParen', pattern: /\(/, label: "'('" });
export const RParen = createToken({ name: 'RParen', pattern: /\)/, label: "')'" });
export const LBracket = createToken({ name: 'LBracket', pattern: /\[/, label: "'['" });
export const RBracket = createToken({ name: 'RBracket', pattern: /]/, label: "']'" });
export const LBrace = createToken({ name: 'LBrace', pattern: /\{/, label: "'{'" });
export const RBrace = createToken({ name: 'RBrace', pattern: /}/, label: "'}'" });
export const Comma = createToken({ name: 'Comma', pattern: /,/, label: "','" });
export const Colon = createToken({ name: 'Colon', pattern: /:/, label: "':'" });

/**
 * Whether the comma or `(` at `index` opens or separates parameters `( … )`, not the items of a (broken)
 * JSON value: the nearest bracket left open before a comma is a `(`, and no `{` or `[` is left open before
 * it (a `(` inside a broken JSON value, such as a string that lost its opening quote, opens nothing).
 */
function inParameters(tokens: readonly IToken[], index: number): boolean {
  let depth = 0;
  let inParentheses = (tokens[index] as IToken).tokenType === LParen;
  for (let at = index - 1; at >= 0; at -= 1) {
    const type = (tokens[at] as IToken).tokenType;
    if (type === RParen || type === RBrace || type === RBracket) depth += 1;
    else if (type === LParen || type === LBrace || type === LBracket) {
      if (depth > 0) depth -= 1;
      else if (type === LParen) inParentheses = true;
      else return false;
    }
  }
  return inParentheses;
}

/**
 * A whole well-formed JSON object or array given as a parameter value (`payload {...}`): one token whose
 * payload is the value (see json-literal.ts). Only right after a parameter name, and only JSON that the
 * scanner takes; otherwise the brackets, strings and numbers are lexed one by one as before.
 */
export const JsonLiteral = createToken({
  name: 'JsonLiteral',
  pattern: {
    exec(text: string, offset: number, tokens: IToken[]): RegExpExecArray | null {
      const key = tokens[tokens.length - 1];
      const before = tokens[tokens.length - 2];
      if (key === undefined || before === undefined || !tokenMatcher(key, OptionKey)) return null;
      if ((before.tokenType !== LParen && before.tokenType !== Comma) || !inParameters(tokens, tokens.length - 2)) return null;
      const scanned = scanJsonLiteral(text, offset);
      if (scanned === undefined) return null;
      const match = [text.slice(offset, scanned.end)] as unknown as RegExpExecArray & { payload: unknown };
      match.payload = scanned.payload;
      return match;
    },
  },
  start_chars_hint: ['{', '['],
  line_breaks: true,
  label: 'JSON',
});

/** Lexing order: first match wins, so longer and more specific patterns come first. */
export const ALL_TOKENS: readonly TokenType[] = [
  WhiteSpace,
  Comment,
  StringLiteral,
  MistakeSingleQuoted,
  MistakeCurlyQuoted,
  DateTime,
  MistakeNumberSuffix,
  MistakeThousands,
  Dollars,
  MistakeSpelledDuration,
  MistakeDecimalDuration,
  Percent,
  NumberLiteral,
  Duration,
  Handle,
  MistakeBareUrl,
  ...KEYWORD_TOKENS,
  Identifier,
  MistakeOperator,
  JsonLiteral,
  GreaterEqual,
  LessEqual,
  Equal,
  NotEqual,
  Greater,
  Less,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Colon,
  // Categories are part of the vocabulary the parser knows.
  Name,
  StepName,
  DurationValue,
  OptionKey,
  ScalarValue,
  Account,
  Chat,
  Instant,
  Comparison,
];
