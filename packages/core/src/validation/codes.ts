/** How serious a diagnostic is: an error makes the request invalid, a warning or info does not. */
export type Severity = 'error' | 'warning' | 'info';

/**
 * Where a diagnostic code comes from: the text form (`syntax`), the request as a whole before any other
 * check (`request`), the schema (`schema`), or a semantic rule (`semantics`).
 */
export type DiagnosticLayer = 'syntax' | 'request' | 'schema' | 'semantics';

/** What {@link DIAGNOSTIC_CODES} says of one code. */
export interface DiagnosticCodeInfo {
  layer: DiagnosticLayer;
  /** The severities diagnostics of this code come with. */
  severity: readonly Severity[];
  /** What the code means, in one line. */
  summary: string;
}

const E: readonly Severity[] = ['error'];
const W: readonly Severity[] = ['warning'];
const EW: readonly Severity[] = ['error', 'warning'];

/**
 * Every diagnostic code the validator (and the text form's syntax errors, code `syntax`) can report, with
 * its layer, severities and a one-line summary. The validator's own codes are typed by it
 * ({@link DiagnosticCode}); the codes of schemas/eql.schema.json's `x-diagnostics` annotations are checked
 * against it by a test, and docs/diagnostics.md has a section for each.
 */
export const DIAGNOSTIC_CODES = {
  syntax: { layer: 'syntax', severity: E, summary: 'the text form or the JSON does not parse' },

  'not-an-object': { layer: 'request', severity: E, summary: 'the request is not a JSON object' },
  'too-deep': { layer: 'request', severity: E, summary: 'condition groups nest more than 5 deep' },
  'internal-error': { layer: 'request', severity: E, summary: 'the validator failed unexpectedly (a bug; please report it)' },

  'missing-property': { layer: 'schema', severity: E, summary: 'a required property is missing' },
  'unknown-property': { layer: 'schema', severity: E, summary: 'a property the object does not take' },
  'wrong-type': { layer: 'schema', severity: E, summary: 'a value of the wrong JSON type (a string where a number goes, …)' },
  'invalid-value': { layer: 'schema', severity: E, summary: 'a value outside the allowed set' },
  'unknown-source': { layer: 'schema', severity: E, summary: 'a condition source EQL does not know' },
  'unknown-method': { layer: 'schema', severity: E, summary: 'a method its condition source does not have' },
  'unknown-action-type': { layer: 'schema', severity: E, summary: 'an action type EQL does not know' },
  'unknown-operator': { layer: 'schema', severity: E, summary: 'a comparison operator the condition does not take' },
  'out-of-range': { layer: 'schema', severity: E, summary: 'a number below its minimum or above its maximum' },
  'empty-string': { layer: 'schema', severity: E, summary: 'an empty string where text is required' },
  'too-short': { layer: 'schema', severity: E, summary: 'a string shorter than its minimum length' },
  'too-long': { layer: 'schema', severity: E, summary: 'a string longer than its maximum length' },
  'invalid-format': { layer: 'schema', severity: E, summary: 'a string not of the form its field requires' },
  'invalid-date-time': { layer: 'schema', severity: E, summary: 'not an ISO 8601 date-time with a time zone' },
  'invalid-duration': { layer: 'schema', severity: E, summary: 'not a duration such as 30s, 15m, 1h or 7d' },
  'invalid-property-name': { layer: 'schema', severity: E, summary: 'a name a map (webhook headers) does not allow' },
  'too-few-items': { layer: 'schema', severity: E, summary: 'a list with fewer items than its minimum' },
  'too-many-items': { layer: 'schema', severity: E, summary: 'a list with more items than its maximum' },
  'too-many-properties': { layer: 'schema', severity: E, summary: 'a map (webhook headers) with too many entries' },
  'ambiguous-shape': { layer: 'schema', severity: E, summary: 'a value that matches none of the shapes allowed there' },
  schema: { layer: 'schema', severity: E, summary: 'any other schema violation' },
  'confidence-range': { layer: 'schema', severity: E, summary: 'a confidence outside 0 to 100' },
  'invalid-symbol': { layer: 'schema', severity: E, summary: 'not a market symbol' },
  'invalid-exchange': { layer: 'schema', severity: E, summary: 'not an exchange name' },
  'invalid-timeframe': { layer: 'schema', severity: E, summary: 'not a candle timeframe' },
  'invalid-username': { layer: 'schema', severity: E, summary: 'not an X username' },
  'invalid-step-id': { layer: 'schema', severity: E, summary: 'a stepId not of letters, digits, _ and -' },
  'order-size': { layer: 'schema', severity: E, summary: 'an order sized in none or both of its ways' },
  'exit-level': { layer: 'schema', severity: E, summary: 'a take-profit or stop-loss given in none or both of its ways' },
  'group-shape': { layer: 'schema', severity: E, summary: 'a condition group that is not exactly one of AND, OR' },
  'empty-group': { layer: 'schema', severity: E, summary: 'a condition group with no members' },
  'no-actions': { layer: 'schema', severity: E, summary: 'a query without actions' },
  'too-many-actions': { layer: 'schema', severity: E, summary: 'a query with more than 10 actions' },
  'too-many-conditions': { layer: 'schema', severity: E, summary: 'more than 20 members in a group, or more than 32 conditions in all' },

  'expires-range': { layer: 'semantics', severity: E, summary: 'expiresIn outside 1m to 30d' },
  'hold-too-long': { layer: 'semantics', severity: E, summary: 'a holdFor not shorter than the query lifetime' },
  'period-range': { layer: 'semantics', severity: E, summary: 'a price statistic period outside 1m to 30d, or a cron period under 1m' },
  'intent-tweet': { layer: 'semantics', severity: EW, summary: 'an llm or news condition that reads like an account\'s post: a tweet condition' },
  'intent-news': { layer: 'semantics', severity: W, summary: 'an llm condition that reads like a world event: a news condition' },
  'username-at': { layer: 'semantics', severity: E, summary: 'a tweet username written with its leading @' },
  'llm-period-too-short': { layer: 'semantics', severity: E, summary: 'an llm condition judged more often than once an hour' },
  'value-out-of-range': { layer: 'semantics', severity: E, summary: 'a threshold the series can never reach' },
  'macd-periods': { layer: 'semantics', severity: E, summary: 'a MACD whose fastPeriod is not shorter than its slowPeriod' },
  'unserved-symbol': { layer: 'semantics', severity: E, summary: 'a symbol the host serves no prices of' },
  'unserved-timeframe': { layer: 'semantics', severity: E, summary: 'a timeframe the host computes no candles of' },
  'lookback-exceeds-lifetime': { layer: 'semantics', severity: E, summary: 'a series that cannot be defined before the query expires: more past than the host has and the query lives' },
  'cron-after-expiry': { layer: 'semantics', severity: E, summary: 'a scheduled instant after the query expires' },
  'trade-in-payment-mode': { layer: 'semantics', severity: E, summary: 'an order on the keyless payment model' },
  'duplicate-step-id': { layer: 'semantics', severity: E, summary: 'two actions with the same stepId' },
  'webhook-url-invalid': { layer: 'semantics', severity: E, summary: 'a webhook URL that is not an absolute URL' },
  'webhook-url-scheme': { layer: 'semantics', severity: E, summary: 'a webhook URL that is not http or https' },
  'webhook-url-credentials': { layer: 'semantics', severity: E, summary: 'a webhook URL with a user name or password in it' },
  'webhook-private-host': { layer: 'semantics', severity: E, summary: 'a webhook to a loopback, private or local host' },
  'invalid-chat-id': { layer: 'semantics', severity: E, summary: 'a bot chatId that is neither a numeric id nor an @channel' },
  'invalid-template': { layer: 'semantics', severity: E, summary: 'a message with a placeholder left open, a section or a partial' },
  'unknown-placeholder': { layer: 'semantics', severity: E, summary: 'a placeholder the trigger does not give' },
  'condition-name': { layer: 'semantics', severity: E, summary: 'a condition name given twice, or one a placeholder already means' },
  'invalid-webhook-body': { layer: 'semantics', severity: E, summary: 'a JSON webhook body that is not JSON once its placeholders are filled' },
  'not-perpetual-symbol': { layer: 'semantics', severity: E, summary: 'an order on a spot market symbol' },
  'exit-level-side': { layer: 'semantics', severity: E, summary: 'a take-profit or stop-loss on the wrong side of the limit price' },
  'callback-order-unbounded': { layer: 'semantics', severity: E, summary: 'an llm order callback that bounds no size the model may ask for' },
  'asset-metadata': { layer: 'semantics', severity: E, summary: 'an llm analysis without the asset metadata it needs' },

  'cooldown-exceeds-lifetime': { layer: 'semantics', severity: W, summary: 'a repeat cooldown not shorter than the lifetime: fires at most once' },
  'period-exceeds-lifetime': { layer: 'semantics', severity: W, summary: 'an llm period longer than the lifetime: judged once' },
  'low-confidence': { layer: 'semantics', severity: W, summary: 'a minConfidence under 50 matches noise' },
  'confidence-overridden': { layer: 'semantics', severity: W, summary: 'operator and value beside args.minConfidence replace it' },
  'confidence-operator': { layer: 'semantics', severity: W, summary: '<, <= or != on a confidence holds for almost anything' },
  'always-true': { layer: 'semantics', severity: W, summary: 'a threshold the series always meets: fires at once' },
  'exact-equality': { layer: 'semantics', severity: W, summary: '== on a continuous series rarely holds' },
  'self-comparison': { layer: 'semantics', severity: W, summary: 'a live operand that is the left side itself' },
  'unit-mismatch': { layer: 'semantics', severity: W, summary: 'a live operand on another scale (rsi against a price)' },
  'duplicate-condition': { layer: 'semantics', severity: W, summary: 'the same condition twice in a group' },
  'contradictory-conditions': { layer: 'semantics', severity: W, summary: 'conditions of an AND group that can never hold together' },
  'cron-in-past': { layer: 'semantics', severity: W, summary: 'a scheduled instant that has passed: holds from the start' },
  'cron-every-without-repeat': { layer: 'semantics', severity: W, summary: 'a cron every without query.repeat fires only once' },
  'webhook-insecure': { layer: 'semantics', severity: W, summary: 'a plain http webhook sends the payload unencrypted' },
  'bot-token-format': { layer: 'semantics', severity: W, summary: 'a botToken that does not look like a bot token' },
  'llm-not-first': { layer: 'semantics', severity: W, summary: 'an llm step that is not first: its session is not recorded' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A diagnostic code of {@link DIAGNOSTIC_CODES}. */
export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/** Whether `code` is one of {@link DIAGNOSTIC_CODES}. */
export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.prototype.hasOwnProperty.call(DIAGNOSTIC_CODES, code);
}
