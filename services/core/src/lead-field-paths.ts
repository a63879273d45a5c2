import { LEAD_FIELDS, type LeadField } from './lead-fields.js';

/** Where SubmitLeadRequest holds the lead: field paths of its fields start with this. */
const LEAD_PATH_PREFIX = 'lead.';

/** A field's proto name from the name generated code and JSON give it: `loanAmount` -> `loan_amount`. */
export function protoFieldName(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

const PROTO_NAMES = new Map<LeadField, string>(LEAD_FIELDS.map((field) => [field, protoFieldName(field)]));
const FIELDS_BY_PROTO_NAME = new Map([...PROTO_NAMES].map(([field, protoName]) => [protoName, field]));

/** A lead field's path in SubmitLeadRequest, proto names as AIP-193 wants: `loanAmount` -> `lead.loan_amount`. */
export function leadFieldPath(field: LeadField): string {
  return LEAD_PATH_PREFIX + (PROTO_NAMES.get(field) ?? field);
}

/** The lead field (JSON name) a SubmitLeadRequest field path points at; undefined for any other path. */
export function leadFieldOfPath(path: string): LeadField | undefined {
  return path.startsWith(LEAD_PATH_PREFIX) ? FIELDS_BY_PROTO_NAME.get(path.slice(LEAD_PATH_PREFIX.length)) : undefined;
}
