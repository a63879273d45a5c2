import { LEAD_FIELDS, type LeadField, leadFieldsWhere } from '@leadflow/core/lead-fields';
import { FILTER_FIELDS } from '../rules/filter-fields.js';
import type { LeadForBuyer } from './request-builder.js';

/** Never in a ping, whatever its mapping says: every personal field (who the person is and how to reach them). */
export const PING_WITHHELD_FIELDS: readonly LeadField[] = leadFieldsWhere((facts) => facts.withheldFromPings);

const WITHHELD: ReadonlySet<string> = new Set(PING_WITHHELD_FIELDS);

const PING_FIELDS: ReadonlySet<string> = new Set(LEAD_FIELDS.filter((field) => !WITHHELD.has(field)));

/** Derived values a ping may carry: those a filter reads (age, amounts, ...) and the publisher's floor. */
const PING_DERIVED: ReadonlySet<string> = new Set([
  ...FILTER_FIELDS.filter((field) => !WITHHELD.has(field)),
  'priceFloor',
]);

/** A lead given for many pings (call-inputs.ts) gets one ping lead: what is built from it is built once. */
const pingLeads = new WeakMap<LeadForBuyer, LeadForBuyer>();

/**
 * The lead as a ping may see it, built afresh from what a ping may carry: lead fields and derived values
 * named on the lists above, nothing else. The derived facts repeat every lead field (a filter reads them
 * there), so blanking the fields alone would not do; a name on no list (a field added later, a value of
 * another caller) is left out rather than let through.
 */
export function pingLead(lead: LeadForBuyer): LeadForBuyer {
  let pinged = pingLeads.get(lead);
  if (!pinged) {
    pinged = { leadId: lead.leadId, fields: only(lead.fields, PING_FIELDS), derived: only(lead.derived, PING_DERIVED) };
    pingLeads.set(lead, pinged);
  }
  return pinged;
}

// A lead's fields, and its derived values, are one object for all the buyers it is pinged to (per zone
// for the derived ones): each is narrowed once. Nothing changes them once built.
const narrowed = new Map<ReadonlySet<string>, WeakMap<object, Record<string, unknown>>>([
  [PING_FIELDS, new WeakMap()],
  [PING_DERIVED, new WeakMap()],
]);

function only<T>(values: Record<string, T>, allowed: ReadonlySet<string>): Record<string, T> {
  const seen = narrowed.get(allowed)!;
  let kept = seen.get(values) as Record<string, T> | undefined;
  if (!kept) {
    kept = Object.fromEntries(Object.entries(values).filter(([name]) => allowed.has(name)));
    seen.set(values, kept);
  }
  return kept;
}
