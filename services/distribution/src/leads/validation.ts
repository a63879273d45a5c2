import { Lead } from '../../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { LEAD_FIELDS, type LeadField, REQUIRED_LEAD_FIELDS } from '../../../common/lead-fields.js';
import {
  abaRoutingNumber,
  amount,
  bankAccountNumber,
  birthDate,
  calendarDate,
  clickid,
  email,
  type FieldRule,
  freeText,
  incomeType,
  ipAddress,
  months,
  phone,
  ssn,
  stateCode,
  testFlag,
  trackingParams,
  zip,
} from './field-rules.js';

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

/** Fields whose rule yields more than the normalized text. */
interface DerivedValues {
  price: number;
  loanAmount: number;
  incomeNetMonthly: number;
  dob: number;
  testMode: boolean;
  tPar: Record<string, string>;
}

type FieldValues = { [F in LeadField]: F extends keyof DerivedValues ? DerivedValues[F] : string };

type FieldRules = { [F in LeadField]: FieldRule<FieldValues[F]> };

const MAX_PRICE_CENTS = 10_000_00;
const MAX_LOAN_AMOUNT_CENTS = 10_000_000_00;
const MAX_MONTHLY_INCOME_CENTS = 1_000_000_00;

// The further fields have no published format: a sane length each, the longer ones sized for real values.
function fieldRules(now: Date): FieldRules {
  return {
    price: amount(0, MAX_PRICE_CENTS),
    loanAmount: amount(1, MAX_LOAN_AMOUNT_CENTS),
    ssn,
    firstName: freeText(100),
    lastName: freeText(100),
    email,
    dob: birthDate(now),
    address: freeText(200),
    city: freeText(100),
    state: stateCode,
    zip,
    homePhone: phone,
    cellPhone: phone,
    userIp: ipAddress,
    clickid,
    testMode: testFlag,
    incomeType,
    incomeNetMonthly: amount(0, MAX_MONTHLY_INCOME_CENTS),
    bankAba: abaRoutingNumber,
    bankAccountNumber,
    driversLicenseNumber: freeText(32),
    driversLicenseState: stateCode,
    incomePaymentFrequency: freeText(64),
    incomeNextDate1: calendarDate,
    incomeNextDate2: calendarDate,
    bankDirectDeposit: freeText(64),
    bankAccountType: freeText(64),
    bankAccountLengthMonths: months,
    ownHome: freeText(64),
    addressLengthMonths: months,
    workPhone: phone,
    consentEmailSms: freeText(64),
    userAgent: freeText(512),
    webSiteUrl: freeText(2048),
    creditRating: freeText(64),
    loanPurpose: freeText(100),
    tPar: trackingParams,
  };
}

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_LEAD_FIELDS);

/**
 * Checks every field of a lead and reports every offending field at once. Surrounding whitespace is
 * ignored, and a value that is empty after that counts as missing. `nonStringFields` names the fields
 * whose JSON value was not a string; each gets "must be a string" and no other check. `now` is the
 * moment the applicant's age is measured at.
 */
export function validateLead(lead: Lead, nonStringFields: readonly string[], now: Date): LeadValidation {
  const rules = fieldRules(now);
  const notStrings = new Set(nonStringFields);
  const errors: Record<string, string> = {};
  const fields = Lead.fromPartial({});
  const values: Partial<FieldValues> = {};

  function check<F extends LeadField>(field: F): void {
    // The type says string, but a JavaScript caller can pass anything.
    const raw: unknown = lead[field];
    if (notStrings.has(field) || typeof raw !== 'string') {
      errors[field] = 'must be a string';
      return;
    }
    const text = raw.trim();
    if (text === '') {
      if (REQUIRED.has(field)) errors[field] = 'is required';
      return;
    }
    const rule: FieldRule<FieldValues[F]> = rules[field];
    const checked = rule(text);
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
 * A canonical text of the lead's normalized fields, equal for two submissions exactly when they carry
 * the same values: fields in proto order, unsent ones left out, JSON-encoded [name, value] pairs. Key
 * order and unknown fields of the JSON body cannot change it. Compares a retry with the first request
 * of the same clickid.
 */
export function leadFingerprintSource(lead: ValidLead): string {
  const sent = LEAD_FIELDS.filter((field) => lead.fields[field] !== '');
  return JSON.stringify(sent.map((field) => [field, lead.fields[field]]));
}
