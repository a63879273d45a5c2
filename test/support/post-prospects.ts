import type { PostProspect } from '@leadflow/distribution/src/selling/post-order';

/** A post's prospect: its price in dollars, accept rate and latency; sent only with its whole timeout left unless `settings` say otherwise. */
export function prospect(
  valueDollars: number,
  acceptRate: number,
  p50Ms: number,
  p90Ms: number,
  settings: Partial<PostProspect> = {},
): PostProspect {
  const timeoutMs = settings.timeoutMs ?? 2000;
  return {
    valueCents: valueDollars * 100,
    acceptRate,
    latency: { p50Ms, p90Ms },
    silentRate: 0,
    timeoutMs,
    minimumTimeMs: timeoutMs,
    timeoutEndsSale: true,
    ...settings,
  };
}
