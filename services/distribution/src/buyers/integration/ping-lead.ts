import { SENSITIVE_LEAD_FIELDS, type LeadField } from '../../../../common/lead-fields.js';
import type { LeadForBuyer } from './request-builder.js';

/** Never in a ping, whatever its mapping says: the sensitive fields, and who the person is and how to reach them. */
export const PING_WITHHELD_FIELDS: readonly LeadField[] = [
  ...SENSITIVE_LEAD_FIELDS,
  'firstName',
  'lastName',
  'email',
  'address',
  'homePhone',
  'cellPhone',
  'workPhone',
  'userIp',
];

/** The lead as a ping may see it: withheld fields absent. Derived values (age, amounts) stay. */
export function pingLead(lead: LeadForBuyer): LeadForBuyer {
  const fields = { ...lead.fields };
  for (const field of PING_WITHHELD_FIELDS) fields[field] = '';
  return { ...lead, fields };
}
