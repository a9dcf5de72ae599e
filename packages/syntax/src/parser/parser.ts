import { type CstNode, CstParser, type IRecognitionException, type IToken } from 'chevrotain';
import * as T from '../lexer/tokens.js';
import { errorMessages, setMessageInput } from './error-messages.js';

const CONDITION = 'a condition (such as price of BTC > 100000, tweet by @account about "…", news about "…", llm "…" every 1h, at 2026-01-01T09:00:00Z, every 1d) or a group (all of [ … ], any of [ … ])';
const ACTION = 'an action (notify, webhook, bot, llm, market or limit)';
const OPERATOR = 'an operator (>, >=, <, <=, ==, !=, crosses above, crosses below)';

/**
 * The grammar of the text form (docs/text-syntax.md). One instance serves every parse: set
 * `input`, call `request()`. Subrules and tokens are labelled so the builder reads children by name.
 */
export class EqlParser extends CstParser {
  constructor() {
    super([...T.ALL_TOKENS], { recoveryEnabled: true, maxLookahead: 3, errorMessageProvider: errorMessages, nodeLocationTracking: 'onlyOffset' });
    this.performSelfAnalysis();
  }

  // ---------------------------------------------------------------- request and clauses

  readonly request = this.RULE('request', () => {
    this.MANY(() => this.SUBRULE(this.clause, { LABEL: 'clause' }));
    this.SUBRULE(this.whenClause, { LABEL: 'when' });
    this.SUBRULE(this.thenClause, { LABEL: 'then' });
    this.MANY2(() => this.SUBRULE2(this.clause, { LABEL: 'clause' }));
  });

  private readonly clause = this.RULE('clause', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.titleClause, { LABEL: 'title' }) },
      { ALT: () => this.SUBRULE(this.descriptionClause, { LABEL: 'description' }) },
      { ALT: () => this.SUBRULE(this.expiresClause, { LABEL: 'expires' }) },
      { ALT: () => this.SUBRULE(this.repeatClause, { LABEL: 'repeat' }) },
    ]);
  });

  private readonly titleClause = this.RULE('titleClause', () => {
    this.CONSUME(T.Title, { LABEL: 'keyword' });
    this.CONSUME(T.StringLiteral, { LABEL: 'value' });
  });

  private readonly descriptionClause = this.RULE('descriptionClause', () => {
    this.CONSUME(T.Description, { LABEL: 'keyword' });
    this.CONSUME(T.StringLiteral, { LABEL: 'value' });
  });

  private readonly expiresClause = this.RULE('expiresClause', () => {
    this.CONSUME(T.Expires, { LABEL: 'keyword' });
    this.CONSUME(T.In);
    this.CONSUME(T.DurationValue, { LABEL: 'value' });
  });

  private readonly repeatClause = this.RULE('repeatClause', () => {
    this.CONSUME(T.Repeat, { LABEL: 'keyword' });
    this.OPTION(() => {
      this.CONSUME(T.After);
      this.CONSUME(T.DurationValue, { LABEL: 'cooldown' });
    });
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  // ---------------------------------------------------------------- conditions

  private readonly whenClause = this.RULE('whenClause', () => {
    this.CONSUME(T.When, { LABEL: 'keyword' });
    this.OR({
      DEF: [
        { ALT: () => this.SUBRULE(this.topGroup, { LABEL: 'group' }) },
        { ALT: () => this.SUBRULE(this.condition, { LABEL: 'condition' }) },
      ],
      ERR_MSG: CONDITION,
    });
  });

  /** The group after `when`: its members may go without brackets, up to `then`. */
  private readonly topGroup = this.RULE('topGroup', () => {
    this.SUBRULE(this.groupHead, { LABEL: 'head' });
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.LBracket, { LABEL: 'open' });
          this.SUBRULE(this.members, { LABEL: 'members' });
          this.CONSUME(T.RBracket, { LABEL: 'close' });
          this.OPTION(() => this.SUBRULE(this.holdFor, { LABEL: 'holdFor' }));
        },
      },
      { ALT: () => this.SUBRULE2(this.members, { LABEL: 'members' }) },
    ]);
  });

  private readonly group = this.RULE('group', () => {
    this.SUBRULE(this.groupHead, { LABEL: 'head' });
    this.CONSUME(T.LBracket, { LABEL: 'open' });
    this.SUBRULE(this.members, { LABEL: 'members' });
    this.CONSUME(T.RBracket, { LABEL: 'close' });
    this.OPTION(() => this.SUBRULE(this.holdFor, { LABEL: 'holdFor' }));
  });

  private readonly groupHead = this.RULE('groupHead', () => {
    this.OR([{ ALT: () => this.CONSUME(T.All, { LABEL: 'kind' }) }, { ALT: () => this.CONSUME(T.Any, { LABEL: 'kind' }) }]);
    this.CONSUME(T.Of);
  });

  private readonly members = this.RULE('members', () => {
    this.MANY(() => {
      this.SUBRULE(this.member, { LABEL: 'member' });
      this.OPTION(() => this.CONSUME(T.Comma));
    });
  });

  private readonly member = this.RULE('member', () => {
    this.OR({
      DEF: [
        { ALT: () => this.SUBRULE(this.group, { LABEL: 'group' }) },
        { ALT: () => this.SUBRULE(this.condition, { LABEL: 'condition' }) },
      ],
      ERR_MSG: CONDITION,
    });
  });

  private readonly condition = this.RULE('condition', () => {
    this.OR({
      DEF: [
        { ALT: () => this.SUBRULE(this.measured, { LABEL: 'measured' }) },
        { ALT: () => this.SUBRULE(this.tweetCondition, { LABEL: 'tweet' }) },
        { ALT: () => this.SUBRULE(this.newsCondition, { LABEL: 'news' }) },
        { ALT: () => this.SUBRULE(this.llmCondition, { LABEL: 'llm' }) },
        { ALT: () => this.SUBRULE(this.cronAt, { LABEL: 'cronAt' }) },
        { ALT: () => this.SUBRULE(this.cronEvery, { LABEL: 'cronEvery' }) },
      ],
      ERR_MSG: CONDITION,
    });
    this.OPTION(() => this.SUBRULE(this.holdFor, { LABEL: 'holdFor' }));
    // `… as oversold`: the condition's name, for the placeholders of outputs ({{oversold.value}}).
    this.OPTION2(() => {
      this.CONSUME(T.As, { LABEL: 'as' });
      this.CONSUME(T.StepName, { LABEL: 'name' });
    });
  });

  private readonly holdFor = this.RULE('holdFor', () => {
    this.CONSUME(T.For, { LABEL: 'keyword' });
    this.CONSUME(T.DurationValue, { LABEL: 'value' });
  });

  /** `price of BTC > 100000`, `rsi of SOL (period 7) crosses above 70`. */
  private readonly measured = this.RULE('measured', () => {
    this.SUBRULE(this.subject, { LABEL: 'subject' });
    this.SUBRULE(this.operator, { LABEL: 'operator' });
    this.SUBRULE(this.operand, { LABEL: 'operand' });
  });

  /** A series: `<measure> of <symbol> [over <period>] [(options)]`; also a live operand. */
  private readonly subject = this.RULE('subject', () => {
    this.CONSUME(T.Identifier, { LABEL: 'measure' });
    this.CONSUME(T.Of);
    this.CONSUME(T.Name, { LABEL: 'symbol' });
    this.OPTION(() => {
      this.CONSUME(T.Over, { LABEL: 'over' });
      this.CONSUME(T.DurationValue, { LABEL: 'period' });
    });
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  private readonly operator = this.RULE('operator', () => {
    this.OR({
      DEF: [
        { ALT: () => this.CONSUME(T.Comparison, { LABEL: 'comparison' }) },
        {
          ALT: () => {
            this.CONSUME(T.Crosses, { LABEL: 'crosses' });
            this.OR2([
              { ALT: () => this.CONSUME(T.Above, { LABEL: 'direction' }) },
              { ALT: () => this.CONSUME(T.Below, { LABEL: 'direction' }) },
            ]);
          },
        },
      ],
      ERR_MSG: OPERATOR,
    });
  });

  private readonly operand = this.RULE('operand', () => {
    this.OR({
      DEF: [
        { ALT: () => this.CONSUME(T.NumberLiteral, { LABEL: 'number' }) },
        { ALT: () => this.SUBRULE(this.subject, { LABEL: 'live' }) },
      ],
      ERR_MSG: 'a number or a live operand such as ema of BTC',
    });
  });

  private readonly tweetCondition = this.RULE('tweetCondition', () => {
    this.CONSUME(T.Tweet, { LABEL: 'keyword' });
    this.CONSUME(T.By);
    this.CONSUME(T.Account, { LABEL: 'username' });
    this.CONSUME(T.About);
    this.CONSUME(T.StringLiteral, { LABEL: 'text' });
    this.OPTION(() => this.SUBRULE(this.options, { LABEL: 'options' }));
    this.OPTION2(() => this.SUBRULE(this.confidenceTest, { LABEL: 'test' }));
  });

  private readonly newsCondition = this.RULE('newsCondition', () => {
    this.CONSUME(T.News, { LABEL: 'keyword' });
    this.CONSUME(T.About);
    this.CONSUME(T.StringLiteral, { LABEL: 'text' });
    this.OPTION(() => this.SUBRULE(this.options, { LABEL: 'options' }));
    this.OPTION2(() => this.SUBRULE(this.confidenceTest, { LABEL: 'test' }));
  });

  private readonly llmCondition = this.RULE('llmCondition', () => {
    this.CONSUME(T.Llm, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.Identifier, { LABEL: 'method' }));
    this.CONSUME(T.StringLiteral, { LABEL: 'query' });
    this.CONSUME(T.Every);
    this.CONSUME(T.DurationValue, { LABEL: 'period' });
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
    this.OPTION3(() => this.SUBRULE(this.confidenceTest, { LABEL: 'test' }));
  });

  /** `with confidence >= 90`: the operator and value of a tweet, news or llm condition. */
  private readonly confidenceTest = this.RULE('confidenceTest', () => {
    this.CONSUME(T.With);
    this.CONSUME(T.Confidence);
    this.SUBRULE(this.operator, { LABEL: 'operator' });
    this.CONSUME(T.NumberLiteral, { LABEL: 'value' });
  });

  private readonly cronAt = this.RULE('cronAt', () => {
    this.CONSUME(T.At, { LABEL: 'keyword' });
    this.CONSUME(T.Instant, { LABEL: 'at' });
    this.OPTION(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  private readonly cronEvery = this.RULE('cronEvery', () => {
    this.CONSUME(T.Every, { LABEL: 'keyword' });
    this.CONSUME(T.DurationValue, { LABEL: 'period' });
    this.OPTION(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  // ---------------------------------------------------------------- actions

  private readonly thenClause = this.RULE('thenClause', () => {
    this.CONSUME(T.Then, { LABEL: 'keyword' });
    this.MANY(() => {
      this.SUBRULE(this.action, { LABEL: 'action' });
      this.OPTION(() => this.CONSUME(T.Comma));
    });
  });

  private readonly action = this.RULE('action', () => {
    this.SUBRULE(this.actionBody, { LABEL: 'body' });
    this.OPTION(() => {
      this.CONSUME(T.As, { LABEL: 'as' });
      this.CONSUME(T.StepName, { LABEL: 'stepId' });
    });
  });

  private readonly actionBody = this.RULE('actionBody', () => {
    this.OR({
      DEF: [
        { ALT: () => this.SUBRULE(this.notifyAction, { LABEL: 'notify' }) },
        { ALT: () => this.SUBRULE(this.webhookAction, { LABEL: 'webhook' }) },
        { ALT: () => this.SUBRULE(this.botAction, { LABEL: 'bot' }) },
        { ALT: () => this.SUBRULE(this.llmAction, { LABEL: 'llm' }) },
        { ALT: () => this.SUBRULE(this.orderAction, { LABEL: 'order' }) },
        { ALT: () => this.SUBRULE(this.closeAction, { LABEL: 'close' }) },
      ],
      ERR_MSG: ACTION,
    });
  });

  private readonly notifyAction = this.RULE('notifyAction', () => {
    this.CONSUME(T.Notify, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.StringLiteral, { LABEL: 'message' }));
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  private readonly webhookAction = this.RULE('webhookAction', () => {
    this.CONSUME(T.Webhook, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.StringLiteral, { LABEL: 'url' }));
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  /** `bot ["message"] to <chat> via "<token>"`. */
  private readonly botAction = this.RULE('botAction', () => {
    this.CONSUME(T.Bot, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.StringLiteral, { LABEL: 'message' }));
    this.OPTION2(() => {
      this.CONSUME(T.To);
      this.CONSUME(T.Chat, { LABEL: 'chat' });
    });
    this.OPTION3(() => {
      this.CONSUME(T.Via);
      this.CONSUME2(T.StringLiteral, { LABEL: 'token' });
    });
    this.OPTION4(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  private readonly llmAction = this.RULE('llmAction', () => {
    this.CONSUME(T.Llm, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.StringLiteral, { LABEL: 'prompt' }));
    this.OPTION2(() => this.SUBRULE(this.options, { LABEL: 'options' }));
    this.OPTION3(() => {
      this.CONSUME(T.Callback, { LABEL: 'callback' });
      this.SUBRULE(this.actionBody, { LABEL: 'callbackBody' });
    });
  });

  /** `market buy $500 of BTC-PERP on paper`, `limit sell 0.5 ETH-PERP on hyperliquid at 4000`. */
  private readonly orderAction = this.RULE('orderAction', () => {
    this.OR([{ ALT: () => this.CONSUME(T.Market, { LABEL: 'kind' }) }, { ALT: () => this.CONSUME(T.Limit, { LABEL: 'kind' }) }]);
    this.OR2({
      DEF: [
        { ALT: () => this.CONSUME(T.Buy, { LABEL: 'side' }) },
        { ALT: () => this.CONSUME(T.Sell, { LABEL: 'side' }) },
        { ALT: () => this.CONSUME(T.Order, { LABEL: 'side' }) },
      ],
      ERR_MSG: "'buy', 'sell' or 'order'",
    });
    this.OPTION(() => this.SUBRULE(this.sizing, { LABEL: 'sizing' }));
    this.OPTION2(() => this.CONSUME(T.Name, { LABEL: 'symbol' }));
    this.OPTION3(() => {
      this.CONSUME(T.On);
      this.CONSUME2(T.Name, { LABEL: 'exchange' });
    });
    this.OPTION4(() => {
      this.CONSUME(T.At);
      this.CONSUME(T.NumberLiteral, { LABEL: 'price' });
    });
    this.OPTION5(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  /** `close BTC-PERP on paper (percent 50)`: the open position, or part of it. */
  private readonly closeAction = this.RULE('closeAction', () => {
    this.CONSUME(T.Close, { LABEL: 'keyword' });
    this.OPTION(() => this.CONSUME(T.Name, { LABEL: 'symbol' }));
    this.OPTION2(() => {
      this.CONSUME(T.On);
      this.CONSUME2(T.Name, { LABEL: 'exchange' });
    });
    this.OPTION3(() => this.SUBRULE(this.options, { LABEL: 'options' }));
  });

  private readonly sizing = this.RULE('sizing', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.Dollars, { LABEL: 'amount' }) },
      { ALT: () => this.CONSUME(T.Percent, { LABEL: 'amount' }) },
      { ALT: () => this.CONSUME(T.NumberLiteral, { LABEL: 'amount' }) },
    ]);
    this.OPTION(() => this.CONSUME(T.Of));
  });

  // ---------------------------------------------------------------- options and JSON values

  /** `(key value, key value)`: the optional parameters, under their JSON names. */
  private readonly options = this.RULE('options', () => {
    this.CONSUME(T.LParen, { LABEL: 'open' });
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.optionEntry, { LABEL: 'option' }) });
    this.CONSUME(T.RParen, { LABEL: 'close' });
  });

  private readonly optionEntry = this.RULE('optionEntry', () => {
    this.CONSUME(T.OptionKey, { LABEL: 'key' });
    this.OR({
      DEF: [
        { ALT: () => this.CONSUME(T.ScalarValue, { LABEL: 'scalar' }) },
        { ALT: () => this.CONSUME(T.JsonLiteral, { LABEL: 'literal' }) },
        { ALT: () => this.SUBRULE(this.jsonObject, { LABEL: 'object' }) },
        { ALT: () => this.SUBRULE(this.jsonArray, { LABEL: 'array' }) },
      ],
      ERR_MSG: 'a value (a number, a quoted string, a word, a duration, true, false, null or JSON)',
    });
  });

  private readonly jsonValue = this.RULE('jsonValue', () => {
    this.OR({
      DEF: [
        { ALT: () => this.CONSUME(T.StringLiteral, { LABEL: 'scalar' }) },
        { ALT: () => this.CONSUME(T.NumberLiteral, { LABEL: 'scalar' }) },
        { ALT: () => this.CONSUME(T.True, { LABEL: 'scalar' }) },
        { ALT: () => this.CONSUME(T.False, { LABEL: 'scalar' }) },
        { ALT: () => this.CONSUME(T.Null, { LABEL: 'scalar' }) },
        { ALT: () => this.SUBRULE(this.jsonObject, { LABEL: 'object' }) },
        { ALT: () => this.SUBRULE(this.jsonArray, { LABEL: 'array' }) },
      ],
      ERR_MSG: 'a JSON value',
    });
  });

  private readonly jsonObject = this.RULE('jsonObject', () => {
    this.CONSUME(T.LBrace, { LABEL: 'open' });
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.jsonMember, { LABEL: 'member' }) });
    this.CONSUME(T.RBrace, { LABEL: 'close' });
  });

  private readonly jsonMember = this.RULE('jsonMember', () => {
    this.CONSUME(T.StringLiteral, { LABEL: 'key' });
    this.CONSUME(T.Colon);
    this.SUBRULE(this.jsonValue, { LABEL: 'value' });
  });

  private readonly jsonArray = this.RULE('jsonArray', () => {
    this.CONSUME(T.LBracket, { LABEL: 'open' });
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.jsonValue, { LABEL: 'item' }) });
    this.CONSUME(T.RBracket, { LABEL: 'close' });
  });
}

/** The one parser of the process. */
const parser = new EqlParser();

export interface Parsed {
  cst: CstNode;
  errors: IRecognitionException[];
}

/** Parses tokens into a concrete syntax tree, recovering from errors where it can. */
export function parseTokens(tokens: IToken[]): Parsed {
  setMessageInput(tokens);
  parser.input = tokens;
  const cst = parser.request();
  return { cst, errors: [...parser.errors] };
}
