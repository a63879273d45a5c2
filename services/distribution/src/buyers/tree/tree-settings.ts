import type { RoutingMode } from '@leadflow/service-kit/config';

/** A tier's own settings; a tier not listed takes the tree's. */
export interface TierSettings {
  tier: number;
  pingWindowMs: number;
}

/**
 * How the ping tree sells, as the `tree` key of a buyers document sets it. A setting left out is the
 * service's environment default (LEADFLOW_ROUTING_MODE, LEADFLOW_PING_WINDOW_MS); a ping window set
 * nowhere is learned from the bidders' answer times.
 */
export interface TreeSettings {
  routing?: RoutingMode;
  pingWindowMs?: number;
  /** In tier order, each tier once. */
  tiers: TierSettings[];
}

export const NO_TREE_SETTINGS: TreeSettings = { tiers: [] };

/** The service's own defaults, from its environment. */
export interface TreeDefaults {
  routing: RoutingMode;
  pingWindowMs: number | undefined;
}

/** Without an environment: strict tiers, ping windows learned. */
export const DEFAULT_TREE: TreeDefaults = { routing: 'strict_tiers', pingWindowMs: undefined };

/** The applied settings over the environment's: what a sale runs with (its routing always set). */
export function effectiveSettings(
  applied: TreeSettings,
  defaults: TreeDefaults,
): TreeSettings & { routing: RoutingMode } {
  const pingWindowMs = applied.pingWindowMs ?? defaults.pingWindowMs;
  return {
    routing: applied.routing ?? defaults.routing,
    ...(pingWindowMs === undefined ? {} : { pingWindowMs }),
    tiers: applied.tiers,
  };
}

/** The settings a sale runs with, looked up by tier. */
export class EffectiveTree {
  readonly routing: RoutingMode;
  private readonly treeWindowMs: number | undefined;
  private readonly tierWindows: ReadonlyMap<number, number>;

  constructor(applied: TreeSettings, defaults: TreeDefaults) {
    const settings = effectiveSettings(applied, defaults);
    this.routing = settings.routing;
    this.treeWindowMs = settings.pingWindowMs;
    this.tierWindows = new Map(settings.tiers.map(({ tier, pingWindowMs }) => [tier, pingWindowMs]));
  }

  /** A tier's configured ping window; undefined: learned from its bidders' answer times. */
  pingWindowMs(tier: number): number | undefined {
    return this.tierWindows.get(tier) ?? this.treeWindowMs;
  }
}
