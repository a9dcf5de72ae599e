/** Beyond this depth a value is summarized rather than walked, so hostile input cannot exhaust the stack. */
const MAX_DEPTH = 64;

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth > MAX_DEPTH) return '"…"';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i += 1) text += (i === 0 ? '' : ',') + canonicalJson(value[i], depth + 1);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item, depth + 1)}`;
    first = false;
  }
  return `${text}}`;
}
