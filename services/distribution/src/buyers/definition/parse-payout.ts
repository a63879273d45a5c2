import type { Payout, PayoutPolicy } from './buyer-definition.js';
import { keyPath, type Problems } from './problems.js';
import { type Fields, isAbsent, isPlainObject, oneOf, readCents, readObject } from './read-values.js';

const TERMS = ['revenueShare', 'fixed'] as const;

/** The publisher's share when the file names none: 80% of the buyer's price. */

const SHARE = /^([01])(?:\.(\d{1,4}))?$/;
const PUBLISHER_ID = /^pub_[0-9A-Za-z]{1,64}$/;

/** A share from 0 to 1 with at most 4 decimals (0.8 or "0.8") in basis points, from its digits. */
function readShareBps(value: unknown, path: string, problems: Problems): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  const match = typeof text === 'string' ? SHARE.exec(text) : null;
  const bps = match ? Number(match[1]) * 10_000 + Number((match[2] ?? '').padEnd(4, '0')) : Number.NaN;
  if (Number.isNaN(bps) || bps > 10_000)
    return problems.at(path, 'must be a share from 0 to 1 with at most 4 decimals, such as 0.8');
  return bps;
}

function readPayout(fields: Fields<(typeof TERMS)[number]>, path: string, problems: Problems): Payout | undefined {
  const term = oneOf(fields, TERMS, path, problems);
  if (term === 'revenueShare') {
    const revenueShareBps = readShareBps(fields.revenueShare, keyPath(path, 'revenueShare'), problems);
    return revenueShareBps === undefined ? undefined : { revenueShareBps };
  }
  if (term === 'fixed') {
    const fixedCents = readCents(fields.fixed, keyPath(path, 'fixed'), problems);
    return fixedCents === undefined ? undefined : { fixedCents };
  }
  return undefined;
}

function parsePublishers(value: unknown, path: string, problems: Problems): Record<string, Payout> | undefined {
  if (!isPlainObject(value)) return problems.at(path, 'must be an object of publisher id -> {revenueShare} or {fixed}');
  const start = problems.found.length;
  const entries: [string, Payout][] = [];
  for (const [publisherId, terms] of Object.entries(value)) {
    const at = keyPath(path, publisherId);
    if (!PUBLISHER_ID.test(publisherId))
      problems.at(at, 'must be a publisher id such as pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D');
    const fields = readObject(terms, at, TERMS, problems, '{revenueShare} or {fixed}');
    const payout = fields && readPayout(fields, at, problems);
    if (payout) entries.push([publisherId, payout]);
  }
  // fromEntries, not assignment: a key such as "__proto__" stays a plain key.
  return problems.found.length > start ? undefined : Object.fromEntries(entries);
}

/**
 * `{revenueShare: 0.8}` or `{fixed: "15.00"}`, optionally with `publishers: {pub_...: {...}}` overriding it
 * for those publishers. Without a payout, or without default terms, each publisher gets its own share
 * (set with `leadflow publisher create --payout-share`).
 */
export function parsePayout(value: unknown, path: string, problems: Problems): PayoutPolicy | undefined {
  if (isAbsent(value)) return { default: undefined, publishers: {} };
  const fields = readObject(value, path, [...TERMS, 'publishers'], problems);
  if (!fields) return undefined;
  const declared = TERMS.some((term) => fields[term] !== undefined);
  const defaultPayout = declared ? readPayout(fields, path, problems) : undefined;
  const publishers = isAbsent(fields.publishers)
    ? {}
    : parsePublishers(fields.publishers, keyPath(path, 'publishers'), problems);
  return (declared && defaultPayout === undefined) || publishers === undefined
    ? undefined
    : { default: defaultPayout, publishers };
}
