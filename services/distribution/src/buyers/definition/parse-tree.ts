import { ROUTING_MODES } from '@leadflow/service-kit/config';
import type { TierSettings, TreeSettings } from '../tree/tree-settings.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { isAbsent, readChoice, readList, readObject, readWholeNumber, required } from './read-values.js';

/** The bounds of LEADFLOW_PING_WINDOW_MS. */
const PING_WINDOW_MS = { min: 1, max: 600_000 } as const;

function readWindow(value: unknown, path: string, problems: Problems): number | undefined {
  return readWholeNumber(value, path, problems, PING_WINDOW_MS.min, PING_WINDOW_MS.max);
}

function parseTier(value: unknown, path: string, problems: Problems): TierSettings | undefined {
  const fields = readObject(value, path, ['tier', 'pingWindowMs'], problems, 'an object with tier and pingWindowMs');
  if (!fields) return undefined;
  const tier = required(fields.tier, keyPath(path, 'tier'), problems, (v) =>
    readWholeNumber(v, keyPath(path, 'tier'), problems, 1, 1000),
  );
  const pingWindowMs = required(fields.pingWindowMs, keyPath(path, 'pingWindowMs'), problems, (v) =>
    readWindow(v, keyPath(path, 'pingWindowMs'), problems),
  );
  return tier === undefined || pingWindowMs === undefined ? undefined : { tier, pingWindowMs };
}

/** An empty list is no tier of its own (the stored form of settings without any). */
function parseTiers(value: unknown, path: string, problems: Problems): TierSettings[] {
  const tiers: TierSettings[] = [];
  if (Array.isArray(value) && value.length === 0) return tiers;
  const firstPathOf = new Map<number, string>();
  (readList(value, path, problems) ?? []).forEach((item, index) => {
    const at = indexPath(path, index);
    const tier = parseTier(item, at, problems);
    if (!tier) return;
    const first = firstPathOf.get(tier.tier);
    if (first !== undefined) problems.at(keyPath(at, 'tier'), `repeats the tier of ${first}`);
    firstPathOf.set(tier.tier, at);
    tiers.push(tier);
  });
  return tiers.sort((a, b) => a.tier - b.tier);
}

/**
 * The `tree` key of a buyers document: `routing` (strict_tiers, price_groups or auction), `pingWindowMs`
 * for every tier, and `tiers: [{tier, pingWindowMs}]` for some; each left out is the environment's default.
 */
export function parseTree(value: unknown, path: string, problems: Problems): TreeSettings | undefined {
  const fields = readObject(value, path, ['routing', 'pingWindowMs', 'tiers'], problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const routing = isAbsent(fields.routing)
    ? undefined
    : readChoice(fields.routing, keyPath(path, 'routing'), ROUTING_MODES, problems);
  const pingWindowMs = isAbsent(fields.pingWindowMs)
    ? undefined
    : readWindow(fields.pingWindowMs, keyPath(path, 'pingWindowMs'), problems);
  const tiers = isAbsent(fields.tiers) ? [] : parseTiers(fields.tiers, keyPath(path, 'tiers'), problems);
  if (problems.found.length > start) return undefined;
  return {
    ...(routing === undefined ? {} : { routing }),
    ...(pingWindowMs === undefined ? {} : { pingWindowMs }),
    tiers,
  };
}
