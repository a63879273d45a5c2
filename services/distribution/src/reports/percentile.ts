/**
 * Nearest-rank percentile of ascending values: the smallest value with at least `percent` % of them at
 * or below it. 0 when there are none.
 */
export function nearestRank(ascending: ArrayLike<number>, percent: number): number {
  if (ascending.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((percent * ascending.length) / 100));
  return ascending[rank - 1];
}
