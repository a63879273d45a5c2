import type { Pricing } from './buyer-definition.js';
import { parseFilter } from './parse-filter.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { readCents, readChoice, readList, readObject, required } from './read-values.js';

const TYPES = ['fixed', 'rules', 'bid'] as const;
type PricingType = (typeof TYPES)[number];
type PriceRule = Extract<Pricing, { type: 'rules' }>['rules'][number];

const KEYS = ['type', 'price', 'default', 'rules'] as const;
const KEYS_OF_TYPE: Record<PricingType, readonly string[]> = {
  fixed: ['type', 'price'],
  rules: ['type', 'default', 'rules'],
  bid: ['type'],
};

// A price of nothing is a mistake, not a free lead.
const MIN_PRICE_CENTS = 1;

function readPrice(value: unknown, path: string, problems: Problems): number | undefined {
  return required(value, path, problems, (v) => readCents(v, path, problems, MIN_PRICE_CENTS));
}

function parsePriceRules(value: unknown, path: string, problems: Problems): PriceRule[] | undefined {
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const rules = items.map((item, index) => {
    const at = indexPath(path, index);
    const fields = readObject(item, at, ['when', 'price'], problems, '{when, price}');
    if (!fields) return undefined;
    const when = required(fields.when, keyPath(at, 'when'), problems, (v) =>
      parseFilter(v, keyPath(at, 'when'), problems),
    );
    const priceCents = readPrice(fields.price, keyPath(at, 'price'), problems);
    return when === undefined || priceCents === undefined ? undefined : { when, priceCents };
  });
  return rules.every((rule) => rule !== undefined) ? rules : undefined;
}

/** `{type: fixed, price}`, `{type: rules, default, rules: [{when, price}]}` or `{type: bid}`; prices in dollars. */
export function parsePricing(value: unknown, path: string, problems: Problems): Pricing | undefined {
  const fields = readObject(
    value,
    path,
    KEYS,
    problems,
    '{type: fixed, price}, {type: rules, default, rules} or {type: bid}',
  );
  if (!fields) return undefined;
  const type = required(fields.type, keyPath(path, 'type'), problems, (v) =>
    readChoice(v, keyPath(path, 'type'), TYPES, problems),
  );
  if (type === undefined) return undefined;
  for (const key of KEYS) {
    if (fields[key] !== undefined && !KEYS_OF_TYPE[type].includes(key))
      problems.at(keyPath(path, key), `is not used with type ${type}`);
  }
  switch (type) {
    case 'fixed': {
      const priceCents = readPrice(fields.price, keyPath(path, 'price'), problems);
      return priceCents === undefined ? undefined : { type, priceCents };
    }
    case 'rules': {
      const defaultCents = readPrice(fields.default, keyPath(path, 'default'), problems);
      const rules = required(fields.rules, keyPath(path, 'rules'), problems, (v) =>
        parsePriceRules(v, keyPath(path, 'rules'), problems),
      );
      return defaultCents === undefined || rules === undefined ? undefined : { type, defaultCents, rules };
    }
    case 'bid':
      return { type };
  }
}
