/**
 * At most `max` points of a series in time order, for a chart: each of `max / 2` buckets keeps its lowest
 * and its highest point (by `value`), so no extreme is lost. A series that fits is returned as it is.
 */
export function thinned<T>(points: readonly T[], max: number, value: (point: T) => number): T[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 2));
  const kept: T[] = [];
  for (let bucket = 0; bucket < buckets; bucket++) {
    const start = Math.floor((bucket * points.length) / buckets);
    const end = Math.floor(((bucket + 1) * points.length) / buckets);
    let low = start;
    let high = start;
    for (let i = start; i < end; i++) {
      if (value(points[i] as T) < value(points[low] as T)) low = i;
      if (value(points[i] as T) > value(points[high] as T)) high = i;
    }
    kept.push(points[Math.min(low, high)] as T);
    if (high !== low) kept.push(points[Math.max(low, high)] as T);
  }
  return kept;
}
