/** Documents the tests open: bad ones with known mistakes, a valid one, and their URIs. */

/** `username-at` on `"@elonmusk"`, `llm-period-too-short` on `30m`. */
export const BAD_TEXT = `title "Doge watch"
when all of
  tweet by "@elonmusk" about "dogecoin"  # the quoted account keeps its @
  llm "Is crypto market sentiment bullish?" every 30m
then
  notify "Doge and sentiment" as alert
`;

export const BAD_REQUEST = {
  title: 'Doge watch',
  query: {
    conditions: {
      AND: [
        { source: 'tweet', args: { username: '@elonmusk', text: 'dogecoin' } },
        { source: 'llm', method: 'athena_condition', args: { query: 'Is crypto market sentiment bullish?', period: '30m' } },
      ],
    },
    actions: [{ stepId: 'alert', type: 'notify', params: { message: 'Doge and sentiment' } }],
  },
};

export const BAD_JSON = `${JSON.stringify(BAD_REQUEST, null, 2)}\n`;

/** `intent-tweet` (an error with a fix to a tweet condition). */
export const INTENT_TEXT = `when llm "@elonmusk tweets about dogecoin" every 1h
then
  notify "Elon on doge" as alert
`;

/** A valid query: 125 credits ($1.125), as in the README. */
export const VALID_TEXT = `title "BTC breakout with bullish sentiment"
when all of
  price of BTC > 100000
  llm athena_condition "Is crypto market sentiment bullish?" every 1h
then
  notify "BTC broke 100k with bullish sentiment" as alert
expires in 24h
`;

export const SYNTAX_ERROR_TEXT = 'when price of > 5 then notify "x" as a\n';

export const URIS = {
  badText: 'file:///work/queries/bad.eql',
  badJson: 'file:///work/queries/bad.eql.json',
  intent: 'file:///work/queries/intent.eql',
  valid: 'file:///work/queries/valid.eql',
  syntax: 'file:///work/queries/syntax.eql',
  brokenJson: 'file:///work/queries/broken.eql.json',
} as const;
