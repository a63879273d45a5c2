import type { Lead } from '../../proto/generated/leadflow/distribution/v1/distribution.js';

/** A lead field by its JSON name, which is also its name in the generated `Lead`. */
export type LeadField = keyof Lead;

/** Every lead field, in proto order. */
export const LEAD_FIELDS = [
  'price',
  'loanAmount',
  'ssn',
  'firstName',
  'lastName',
  'email',
  'dob',
  'address',
  'city',
  'state',
  'zip',
  'homePhone',
  'cellPhone',
  'userIp',
  'clickid',
  'testMode',
  'incomeType',
  'incomeNetMonthly',
  'bankAba',
  'bankAccountNumber',
  'driversLicenseNumber',
  'driversLicenseState',
  'incomePaymentFrequency',
  'incomeNextDate1',
  'incomeNextDate2',
  'bankDirectDeposit',
  'bankAccountType',
  'bankAccountLengthMonths',
  'ownHome',
  'addressLengthMonths',
  'workPhone',
  'consentEmailSms',
  'userAgent',
  'webSiteUrl',
  'creditRating',
  'loanPurpose',
  'tPar',
] as const satisfies readonly LeadField[];

// Fails to compile, naming the field, when a field of `Lead` is missing from LEAD_FIELDS.
({}) satisfies Record<Exclude<LeadField, (typeof LEAD_FIELDS)[number]>, never>;

/** The fields the public spec marks required. */
export const REQUIRED_LEAD_FIELDS = [
  'price',
  'loanAmount',
  'ssn',
  'firstName',
  'lastName',
  'email',
  'dob',
  'address',
  'city',
  'state',
  'zip',
  'homePhone',
  'cellPhone',
  'userIp',
  'clickid',
] as const satisfies readonly LeadField[];

/**
 * The applicant's personal data: encrypted at rest, masked wherever shown, and
 * removed by the retention purge (the keyed hashes stay). Under GLBA all of it
 * is customer information: who the person is (names, date of birth, SSN,
 * licence), how to reach them (e-mail, phones, street address, IP) and their
 * accounts. City, state and ZIP stay in plain text: they identify no one on
 * their own, and operators read them to see where leads come from.
 */
export const SENSITIVE_LEAD_FIELDS = [
  'ssn',
  'dob',
  'bankAba',
  'bankAccountNumber',
  'driversLicenseNumber',
  'firstName',
  'lastName',
  'email',
  'address',
  'homePhone',
  'cellPhone',
  'workPhone',
  'userIp',
] as const satisfies readonly LeadField[];

const SENSITIVE_FIELD_NAMES: ReadonlySet<string> = new Set(SENSITIVE_LEAD_FIELDS);

export function isSensitiveLeadField(name: string): boolean {
  return SENSITIVE_FIELD_NAMES.has(name);
}

const LEAD_FIELD_NAMES: ReadonlySet<string> = new Set(LEAD_FIELDS);

export function isLeadField(name: string): name is LeadField {
  return LEAD_FIELD_NAMES.has(name);
}
