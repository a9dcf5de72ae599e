/** Beyond this depth values are compared by identity only, so hostile input cannot exhaust the stack. */
const MAX_DEPTH = 64;

/** Structural equality of JSON values (object key order does not matter), without allocating. */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_DEPTH) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    if (!Object.prototype.hasOwnProperty.call(left, key)) continue;
    if (left[key] === undefined) continue;
    count += 1;
    if (!Object.prototype.hasOwnProperty.call(right, key) || !sameJson(left[key], right[key], depth + 1)) return false;
  }
  for (const key in right) {
    if (Object.prototype.hasOwnProperty.call(right, key) && right[key] !== undefined) count -= 1;
  }
  return count === 0;
}
