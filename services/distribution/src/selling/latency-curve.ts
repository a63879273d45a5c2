/**
 * A buyer's post latency as the post order models it: a log-normal through its learned median and 90th
 * percentile.
 */

/** A post latency profile: its median and 90th percentile, milliseconds. */
export interface LatencyProfile {
  p50Ms: number;
  p90Ms: number;
}

/** z of the 90th percentile of the standard normal. */
const Z90 = 1.2815515655446004;

/** The log-normal's parameters: the latency's log is normal with mean mu and deviation sigma. */
export function logNormal(latency: LatencyProfile): { mu: number; sigma: number } {
  const p50 = Math.max(1, latency.p50Ms);
  const p90 = Math.max(p50 * 1.05, latency.p90Ms);
  return { mu: Math.log(p50), sigma: (Math.log(p90) - Math.log(p50)) / Z90 };
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26 for erf, error below 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** The standard normal's quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  if (p < TAIL) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1)
    );
  }
  if (p > 1 - TAIL) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
    (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1)
  );
}

/** Below this (and above one minus it) the quantile's tail formula applies. */
const TAIL = 0.02425;
const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
] as const;
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572] as const;
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
] as const;
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416] as const;
