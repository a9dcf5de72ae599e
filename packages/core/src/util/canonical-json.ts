/** Beyond this depth a value is summarized rather than walked, so hostile input cannot exhaust the stack. */
const MAX_DEPTH = 64;

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return '"…"';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key], depth + 1)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
