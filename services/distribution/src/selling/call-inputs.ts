// What every call of a lead to a buyer needs and many calls share: built once, not once per call (a
// lead pinged to a hundred buyers makes a hundred calls).
import type { LeadForBuyer } from '../buyers/integration/request-builder.js';
import type { LeadFacts } from '../buyers/rules/lead-facts.js';
import type { SaleRequest } from './lead-seller.js';

// Buyers in one zone share the lead's facts (factsByZone), and so its derived values.
const derivedOfFacts = new WeakMap<LeadFacts, LeadForBuyer['derived']>();

/** What a buyer's request reads besides the lead's fields: its facts and the publisher's floor. */
function derivedValues(facts: LeadFacts, priceFloorCents: number): LeadForBuyer['derived'] {
  let derived = derivedOfFacts.get(facts);
  if (!derived) {
    derived = { ...facts, priceFloor: priceFloorCents / 100 };
    derivedOfFacts.set(facts, derived);
  }
  return derived;
}

// Pings carry no ping reference nor attempt id: one lead object serves every ping of a zone.
const pingInputs = new WeakMap<LeadForBuyer['derived'], LeadForBuyer>();

/**
 * The lead as a call to a buyer reads it. A ping's is one object for every buyer of a zone, so that
 * their requests are built from it once (request-builder.ts).
 */
export function leadForCall(
  request: SaleRequest,
  facts: LeadFacts,
  call: { pingReference?: string; attemptId?: string } | 'ping',
): LeadForBuyer {
  const derived = derivedValues(facts, request.lead.priceCents);
  if (call !== 'ping') return { leadId: request.leadId, fields: request.lead.fields, derived, ...call };
  let lead = pingInputs.get(derived);
  if (!lead) {
    lead = { leadId: request.leadId, fields: request.lead.fields, derived };
    pingInputs.set(derived, lead);
  }
  return lead;
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
