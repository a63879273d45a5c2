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

/** Fields encrypted at rest and masked wherever they are shown. */
export const SENSITIVE_LEAD_FIELDS = [
  'ssn',
  'dob',
  'bankAba',
  'bankAccountNumber',
  'driversLicenseNumber',
] as const satisfies readonly LeadField[];

const LEAD_FIELD_NAMES: ReadonlySet<string> = new Set(LEAD_FIELDS);

export function isLeadField(name: string): name is LeadField {
  return LEAD_FIELD_NAMES.has(name);
}
