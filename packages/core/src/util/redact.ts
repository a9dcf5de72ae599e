import { isRecord } from './json-pointer.js';

/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Values shorter than this are never redacted: they are too short to be secrets worth hiding, and
 * removing them would garble ordinary words (a submitted `Net` must not turn `NetworkError` into
 * `[redacted]workError`).
 */
export const MIN_REDACTED_LENGTH = 4;

/**
 * Values at least this long are redacted wherever they occur, inside longer words and URLs too
 * (`/bot<token>/sendMessage`); shorter ones only where they stand as a whole word (not preceded or
 * followed by a letter, a digit or `_`).
 */
export const ANYWHERE_REDACTED_LENGTH = 12;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A function that removes secret values from a text (error messages, problems, logs): each value of
 * {@link ANYWHERE_REDACTED_LENGTH} characters or more wherever it occurs, shorter ones of
 * {@link MIN_REDACTED_LENGTH} or more only as whole words, shorter ones never. The longest values go
 * first, so a secret that contains another is removed whole.
 */
export function secretRedactor(secrets: Iterable<string | null | undefined>): (text: string) => string {
  const values = [...new Set([...secrets].filter((secret): secret is string => typeof secret === 'string' && secret.length >= MIN_REDACTED_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  if (values.length === 0) return (text) => text;
  const steps = values.map((value): ((text: string) => string) => {
    if (value.length >= ANYWHERE_REDACTED_LENGTH) return (text) => text.split(value).join(REDACTED);
    const pattern = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(value)}(?![A-Za-z0-9_])`, 'g');
    return (text) => text.replace(pattern, REDACTED);
  });
  return (text) => steps.reduce((out, step) => step(out), text);
}

/** {@link secretRedactor} applied once. */
export function redactSecrets(text: string, secrets: Iterable<string | null | undefined>): string {
  return secretRedactor(secrets)(text);
}

/**
 * The secret values an action carries, which no error text may repeat: a messenger_bot's `botToken`
 * and every header value of a webhook (custom headers carry credentials: `Authorization`, API keys).
 * For an llm action, those of its callback action too.
 */
export function actionSecretValues(action: unknown): string[] {
  if (!isRecord(action)) return [];
  const params = isRecord(action.params) ? action.params : {};
  const values: string[] = [];
  if (action.type === 'messenger_bot' && typeof params.botToken === 'string') values.push(params.botToken);
  if (action.type === 'webhook' && isRecord(params.headers)) {
    for (const value of Object.values(params.headers)) if (typeof value === 'string') values.push(value);
  }
  if (action.type === 'llm' && isRecord(params.callback)) values.push(...actionSecretValues(params.callback.action));
  return values;
}

/** The secret values of every action of a query body (`{conditions, actions}`), see {@link actionSecretValues}. */
export function querySecretValues(query: unknown): string[] {
  if (!isRecord(query) || !Array.isArray(query.actions)) return [];
  return query.actions.flatMap((action) => actionSecretValues(action));
}
