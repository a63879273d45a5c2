import type { BuyerDefinition } from './buyer-definition.js';
import type { BuyerValues } from './buyer-values.js';
import { parseCaps } from './parse-caps.js';
import { parseDuplicates } from './parse-duplicates.js';
import { parseFilter } from './parse-filter.js';
import { parseIntegration } from './parse-integration.js';
import { parsePayout } from './parse-payout.js';
import { parsePricing } from './parse-pricing.js';
import { parseReturns } from './parse-returns.js';
import { parseSchedule } from './parse-schedule.js';
import { keyPath, type Problems } from './problems.js';
import { isAbsent, isPlainObject, orDefault, readFlag, readObject, readWholeNumber, required } from './read-values.js';

const KEYS = [
  'name',
  'active',
  'tier',
  'priority',
  'weight',
  'integration',
  'filters',
  'schedule',
  'caps',
  'duplicates',
  'pricing',
  'payout',
  'returns',
] as const;

const BUYER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function readName(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value !== 'string' || !BUYER_NAME.test(value)) {
    return problems.at(path, 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  return value;
}

export function parseBuyer(
  value: unknown,
  path: string,
  values: BuyerValues,
  problems: Problems,
): BuyerDefinition | undefined {
  const fields = readObject(value, path, KEYS, problems, 'a buyer: an object with name, integration and pricing');
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const whole = (key: 'tier' | 'priority' | 'weight', fallback: number, min: number, max: number): number | undefined =>
    orDefault(fields[key], fallback, (v) => readWholeNumber(v, at(key), problems, min, max));

  const name = required(fields.name, at('name'), problems, (v) => readName(v, at('name'), problems));
  const active = orDefault(fields.active, true, (v) => readFlag(v, at('active'), problems));
  const tier = whole('tier', 1, 1, 1000);
  const priority = whole('priority', 100, 0, 1_000_000);
  const weight = whole('weight', 1, 1, 10_000);
  // A bid is the price only where one arrives, which the integration must locate: checked there, so
  // that its other mistakes do not hide this one. (parsePricing reads `type` exactly so.)
  const pricedByBid = isPlainObject(fields.pricing) && fields.pricing.type === 'bid';
  const integration = required(fields.integration, at('integration'), problems, (v) =>
    parseIntegration(v, at('integration'), { values, pricedByBid }, problems),
  );
  const filters = isAbsent(fields.filters) ? undefined : parseFilter(fields.filters, at('filters'), problems);
  const schedule = isAbsent(fields.schedule) ? undefined : parseSchedule(fields.schedule, at('schedule'), problems);
  const caps = parseCaps(fields.caps, at('caps'), problems);
  const duplicates = isAbsent(fields.duplicates)
    ? undefined
    : parseDuplicates(fields.duplicates, at('duplicates'), problems);
  const pricing = required(fields.pricing, at('pricing'), problems, (v) => parsePricing(v, at('pricing'), problems));
  const payout = parsePayout(fields.payout, at('payout'), problems);
  const returns = parseReturns(fields.returns, at('returns'), problems);

  if (
    problems.found.length > start ||
    name === undefined ||
    active === undefined ||
    tier === undefined ||
    priority === undefined ||
    weight === undefined ||
    integration === undefined ||
    caps === undefined ||
    pricing === undefined ||
    payout === undefined
  ) {
    return undefined;
  }
  return {
    name,
    active,
    tier,
    priority,
    weight,
    integration,
    filters,
    schedule,
    caps,
    duplicates,
    pricing,
    payout,
    ...(returns && { returns }),
  };
}
