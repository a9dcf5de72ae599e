/**
 * The stores' contract on text (docs/http-api.md, "Text at rest"): a NUL (U+0000) is kept as U+FFFD,
 * in a text column and at any depth of a JSON value, property names included. PostgreSQL's `text`
 * refuses a NUL (the write would fail: an execution left `running`, a settled payment unrecorded) and
 * SQLite keeps it; with this rule both read back the same thing. The request's own text never holds a
 * NUL (http/refuse-nul.ts answers 400); what reaches a store from elsewhere can: an exchange's error
 * message, a bot API's description, a model's reply, a facilitator's answer, a symbol on the market bus.
 */

const NUL = '\u0000';
const REPLACEMENT = '\uFFFD';

/**
 * `\u0000` as JSON.stringify writes a NUL, when it is not itself escaped: preceded by an even number of
 * backslashes (`\\u0000` is a backslash followed by the text "u0000"). JSON.stringify writes no NUL raw.
 */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/** Text as a store keeps it: every U+0000 replaced by U+FFFD. */
export function storedText(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, REPLACEMENT) : text;
}

/** {@link storedText} of a text, or null for none. */
export function storedTextOrNull(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : storedText(text);
}

/**
 * The JSON text a store keeps of a value: JSON.stringify, with every U+0000 of a string or a name as
 * U+FFFD. A value with a NUL is walked (rare: the text is not patched in place), because two names that
 * differ only by a NUL and a U+FFFD become one name, kept once with the later value as JSON.parse would.
 */
export function storedJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u0000') && ESCAPED_NUL.test(json) ? JSON.stringify(withoutNul(JSON.parse(json))) : json;
}

/** A parsed JSON value with every U+0000 of its strings and names replaced. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return storedText(value);
  if (Array.isArray(value)) return value.map(withoutNul);
  if (typeof value !== 'object' || value === null) return value;
  // No prototype: a name "__proto__" is a property like any other, as JSON.parse made it.
  const kept = Object.create(null) as Record<string, unknown>;
  for (const [name, child] of Object.entries(value)) kept[storedText(name)] = withoutNul(child);
  return kept;
}
