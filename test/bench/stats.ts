/** The value at `fraction` (0..1) of an ascending list, rounded to 0.01; undefined for an empty list. */
export function percentile(sorted: readonly number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!);
}

export function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
