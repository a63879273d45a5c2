// What every call of a lead to a buyer needs and many calls share: built once, not once per call (a
// lead pinged to a hundred buyers makes a hundred calls).
import type { LeadForBuyer } from '../buyers/integration/request-builder.js';
import type { LeadFacts } from '../buyers/rules/lead-facts.js';

// Buyers in one zone share the lead's facts (factsByZone), and so its derived values.
const derivedOfFacts = new WeakMap<LeadFacts, LeadForBuyer['derived']>();

/** What a buyer's request reads besides the lead's fields: its facts and the publisher's floor. */
export function derivedValues(facts: LeadFacts, priceFloorCents: number): LeadForBuyer['derived'] {
  let derived = derivedOfFacts.get(facts);
  if (!derived) {
    derived = { ...facts, priceFloor: priceFloorCents / 100 };
    derivedOfFacts.set(facts, derived);
  }
  return derived;
}

/** As many as buyers' URLs; cleared should there ever be more. */
const hosts = new Map<string, string | undefined>();
const MAX_HOSTS_KEPT = 10_000;

/** The host of a buyer URL, undefined when it does not parse. */
export function hostOfUrl(url: string): string | undefined {
  if (hosts.has(url)) return hosts.get(url);
  const host = URL.canParse(url) ? new URL(url).hostname : undefined;
  if (hosts.size >= MAX_HOSTS_KEPT) hosts.clear();
  hosts.set(url, host);
  return host;
}
