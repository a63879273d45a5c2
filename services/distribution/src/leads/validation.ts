import {
  LEAD_FIELD_CATALOGUE,
  LEAD_FIELDS,
  type LeadField,
  type LeadFieldCatalogue,
  REQUIRED_LEAD_FIELDS,
} from '@leadflow/core/lead-fields';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { type Checked, type FieldRule, fieldRule, type RuleValue } from './field-rules.js';
import { canonicalIpAddress } from './ip-address.js';

/** A lead that passed every rule, with its values normalized and ready to store. */
export interface ValidLead {
  /** Every field by JSON name, normalized (e.g. SSN and phones as bare digits); '' when not sent. */
  readonly fields: Readonly<Record<LeadField, string>>;
  /** The publisher's floor price. */
  readonly priceCents: number;
  readonly loanAmountCents: number;
  readonly incomeNetMonthlyCents: number | null;
  readonly test: boolean;
  /** tPar's named pairs; empty when tPar was not sent. */
  readonly tracking: Readonly<Record<string, string>>;
  /** The applicant's age in whole years at validation time. */
  readonly ageYears: number;
}

export type LeadValidation =
  | { ok: true; lead: ValidLead }
  /** JSON field name -> message; one entry per offending field, messages never contain the value. */
  | { ok: false; errors: Record<string, string> };

/** Each field's value as its catalogue rule yields it: amounts in cents, the age for dob, ... */
type FieldValues = { [F in LeadField]: RuleValue<LeadFieldCatalogue[F]['rule']['kind']> };

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_LEAD_FIELDS);
export const REQUIRED_MESSAGE = 'is required';
export const NOT_A_STRING_MESSAGE = 'must be a string';

/** One field's rule applied to a sent value, surrounding whitespace ignored; undefined when nothing is left. */
function checkValue<F extends LeadField>(field: F, raw: string, now: Date): Checked<FieldValues[F]> | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  // FieldValues[F] is the value of this field's rule kind; TypeScript cannot follow F into the catalogue.
  const rule = fieldRule(LEAD_FIELD_CATALOGUE[field].rule, now) as FieldRule<FieldValues[F]>;
  return rule(text);
}

/**
 * A clickid as the intake stores it (surrounding whitespace ignored), or undefined for one the intake
 * refuses: what a look-up by clickid searches for, so that it finds the lead under any clickid that
 * named it.
 */
export function normalizedClickid(raw: string): string | undefined {
  const checked = checkValue('clickid', raw, new Date());
  return checked?.ok ? checked.normalized : undefined;
}

/**
 * Checks every field of a lead and reports every offending field at once. Surrounding whitespace is
 * ignored, and a value that is empty after that counts as missing. `nonStringFields` names the fields
 * whose JSON value was not a string; each gets "must be a string" and no other check. `now` is the
 * moment the applicant's age is measured at.
 */
export function validateLead(lead: Lead, nonStringFields: readonly string[], now: Date): LeadValidation {
  const notStrings = new Set(nonStringFields);
  const errors: Record<string, string> = {};
  const fields = Lead.fromPartial({});
  const values: Partial<FieldValues> = {};

  function check<F extends LeadField>(field: F): void {
    // The type says string, but a JavaScript caller can pass anything.
    const raw: unknown = lead[field];
    if (notStrings.has(field) || typeof raw !== 'string') {
      errors[field] = NOT_A_STRING_MESSAGE;
      return;
    }
    const checked = checkValue(field, raw, now);
    if (checked === undefined) {
      if (REQUIRED.has(field)) errors[field] = REQUIRED_MESSAGE;
      return;
    }
    if (!checked.ok) {
      errors[field] = checked.message;
      return;
    }
    fields[field] = checked.normalized;
    values[field] = checked.value;
  }

  for (const field of LEAD_FIELDS) check(field);

  const { price, loanAmount, dob } = values;
  // The undefined tests only narrow the types: a missing required field has already left an error.
  if (Object.keys(errors).length > 0 || price === undefined || loanAmount === undefined || dob === undefined) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    lead: {
      fields,
      priceCents: price,
      loanAmountCents: loanAmount,
      incomeNetMonthlyCents: values.incomeNetMonthly ?? null,
      test: values.testMode ?? false,
      tracking: values.tPar ?? {},
      ageYears: dob,
    },
  };
}

/**
 * A canonical text of the lead's values, equal for two submissions exactly when they carry the same
 * values: fields in proto order, unsent ones left out, JSON-encoded [name, value] pairs. Key order and
 * unknown fields of the JSON body cannot change it, nor can the spelling of a value: fields are compared
 * normalized, a live lead's testMode is left out whether it was sent as "0" or not at all, an IPv6
 * address is compared in one spelling and tPar by its pairs. Compares a retry with the first request of
 * the same clickid.
 */
export function leadFingerprintSource(lead: ValidLead): string {
  return pairsSource({
    ...lead.fields,
    testMode: lead.test ? '1' : '',
    userIp: canonicalIpAddress(lead.fields.userIp),
    tPar: trackingSource(lead.tracking),
  });
}

/** tPar's pairs in name order: the same parameters however they were encoded and ordered; '' for none. */
function trackingSource(tracking: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(tracking).sort(([a], [b]) => (a < b ? -1 : 1));
  return pairs.length === 0 ? '' : JSON.stringify(pairs);
}

/**
 * What the lead was fingerprinted from before spellings of one value compared equal: its fields as
 * normalized (testMode "0", an IPv6 address and tPar as sent). A retry of a lead stored then is compared with it too, so that it is
 * still a replay. Undefined when that is the current source: most leads' fingerprints did not change.
 */
export function earlierFingerprintSource(lead: ValidLead): string | undefined {
  const earlier = pairsSource(lead.fields);
  return earlier === leadFingerprintSource(lead) ? undefined : earlier;
}

function pairsSource(fields: Readonly<Record<LeadField, string>>): string {
  const sent = LEAD_FIELDS.filter((field) => fields[field] !== '');
  return JSON.stringify(sent.map((field) => [field, fields[field]]));
}
