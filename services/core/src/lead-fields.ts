import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { amount, freeText, type LeadFieldRule, rule } from './lead-field-rules.js';

/** A lead field by its JSON name, which is also its name in the generated `Lead`. */
export type LeadField = keyof Lead;

/**
 * How `lead show` masks a personal field: hidden whole, all but the initial, the e-mail's local part but
 * its initial, or all but the last four characters.
 */
export type LeadFieldMask = 'whole' | 'initial' | 'email' | 'lastFour';

interface CommonFacts {
  /** How the value is checked and normalized. */
  readonly rule: LeadFieldRule;
  /** The public spec requires it. */
  readonly required: boolean;
  /** Never in a ping, whatever its mapping says: a buyer learns it only once it has bought the lead. */
  readonly withheldFromPings: boolean;
  /** What the field means, for publishers (the OpenAPI document). */
  readonly description: string;
  readonly example?: string;
}

/**
 * Everything leadflow knows about one lead field; validation, the OpenAPI document, pings, filters and
 * masking read it here. `sensitive` marks the applicant's personal data: encrypted at rest, masked
 * wherever shown, removed by the retention purge (the keyed hashes stay), never in a buyer's URL. Under
 * GLBA all of it is customer information: who the person is (names, date of birth, SSN, licence), how
 * to reach them (e-mail, phones, street address, IP) and their accounts. City, state and ZIP stay in
 * plain text: they identify no one on their own, and operators read them to see where leads come from.
 */
export type LeadFieldFacts = CommonFacts &
  ({ readonly sensitive: true; readonly mask: LeadFieldMask } | { readonly sensitive: false; readonly mask?: never });

const MAX_PRICE_CENTS = 10_000_00;
const MAX_LOAN_AMOUNT_CENTS = 10_000_000_00;
const MAX_MONTHLY_INCOME_CENTS = 1_000_000_00;

const PUBLIC = { sensitive: false, withheldFromPings: false } as const;

/** A personal field: sensitive and withheld from pings, masked as `mask` says. */
function personal<M extends LeadFieldMask>(mask: M) {
  return { sensitive: true, withheldFromPings: true, mask } as const;
}

/**
 * Every lead field, in proto order (the order fingerprints list them in). The fields without a published
 * format get a sane length each, the longer ones sized for real values.
 */
export const LEAD_FIELD_CATALOGUE = {
  price: {
    rule: amount(0, MAX_PRICE_CENTS),
    required: true,
    ...PUBLIC,
    description:
      'Lead price in USD, a decimal amount such as "12.50": your floor. The lead is offered only to buyers whose payout to you is at least this much.',
  },
  loanAmount: {
    rule: amount(1, MAX_LOAN_AMOUNT_CENTS),
    required: true,
    ...PUBLIC,
    description: 'Requested loan amount in USD, a decimal amount above zero.',
  },
  ssn: { rule: rule('ssn'), required: true, ...personal('lastFour'), description: 'Social Security Number, 9 digits.' },
  firstName: { rule: freeText(100), required: true, ...personal('initial'), description: 'First name.' },
  lastName: { rule: freeText(100), required: true, ...personal('initial'), description: 'Last name.' },
  email: { rule: rule('email'), required: true, ...personal('email'), description: 'E-mail address.' },
  dob: {
    rule: rule('birthDate'),
    required: true,
    ...personal('whole'),
    description: 'Date of birth, YYYY-MM-DD; the applicant is 18 to 120 years old.',
  },
  address: { rule: freeText(200), required: true, ...personal('whole'), description: 'Street address.' },
  city: { rule: freeText(100), required: true, ...PUBLIC, description: 'City name.' },
  state: { rule: rule('stateCode'), required: true, ...PUBLIC, description: 'State: two-letter USPS code.' },
  zip: { rule: rule('zip'), required: true, ...PUBLIC, description: 'ZIP code: 5 digits or ZIP+4.' },
  homePhone: {
    rule: rule('phone'),
    required: true,
    ...personal('lastFour'),
    description: 'Home phone: 10 digits, a valid North American number.',
  },
  cellPhone: {
    rule: rule('phone'),
    required: true,
    ...personal('lastFour'),
    description: 'Cell phone: 10 digits, a valid North American number.',
  },
  userIp: {
    rule: rule('ipAddress'),
    required: true,
    ...personal('whole'),
    description: 'IP address (IPv4 or IPv6) of the end user.',
  },
  clickid: {
    rule: rule('clickid'),
    required: true,
    ...PUBLIC,
    description:
      'Your unique tracking identifier, one per lead (1 to 128 printable characters). Posting the same clickid with the same body again replays the first answer; with a different body it is a 400.',
  },
  testMode: {
    rule: rule('testFlag'),
    required: false,
    ...PUBLIC,
    description:
      '"1" marks a test lead: validated by the same rules, not charged, sent only to buyers\' test endpoints. "0", or no testMode, is a live lead: a retry may send either.',
  },
  incomeType: { rule: rule('incomeType'), required: false, ...PUBLIC, description: 'Type of income.' },
  incomeNetMonthly: {
    rule: amount(0, MAX_MONTHLY_INCOME_CENTS),
    required: false,
    ...PUBLIC,
    description: 'Net monthly income in USD.',
  },
  bankAba: {
    rule: rule('abaRoutingNumber'),
    required: false,
    ...personal('lastFour'),
    description: 'Bank routing (ABA) number: 9 digits with a valid checksum.',
  },
  bankAccountNumber: {
    rule: rule('bankAccountNumber'),
    required: false,
    ...personal('lastFour'),
    description: 'Bank account number: 4 to 17 digits.',
  },
  driversLicenseNumber: {
    rule: freeText(32),
    required: false,
    ...personal('lastFour'),
    description: "Driver's license number.",
  },
  driversLicenseState: {
    rule: rule('stateCode'),
    required: false,
    ...PUBLIC,
    description: "State that issued the driver's license.",
  },
  incomePaymentFrequency: { rule: freeText(64), required: false, ...PUBLIC, description: 'How often income is paid.' },
  incomeNextDate1: {
    rule: rule('calendarDate'),
    required: false,
    ...PUBLIC,
    description: 'Next income date, YYYY-MM-DD.',
  },
  incomeNextDate2: {
    rule: rule('calendarDate'),
    required: false,
    ...PUBLIC,
    description: 'The income date after that, YYYY-MM-DD.',
  },
  bankDirectDeposit: {
    rule: freeText(64),
    required: false,
    ...PUBLIC,
    description: 'Whether income is paid by direct deposit.',
  },
  bankAccountType: { rule: freeText(64), required: false, ...PUBLIC, description: 'Type of bank account.' },
  bankAccountLengthMonths: {
    rule: rule('months'),
    required: false,
    ...PUBLIC,
    description: 'How long the bank account has been open, in months.',
  },
  ownHome: { rule: freeText(64), required: false, ...PUBLIC, description: 'Whether the applicant owns their home.' },
  addressLengthMonths: {
    rule: rule('months'),
    required: false,
    ...PUBLIC,
    description: 'How long the applicant has lived at the address, in months.',
  },
  workPhone: {
    rule: rule('phone'),
    required: false,
    ...personal('lastFour'),
    description: 'Work phone: 10 digits, a valid North American number.',
  },
  consentEmailSms: {
    rule: freeText(64),
    required: false,
    ...PUBLIC,
    description: 'Whether the applicant consents to contact by e-mail and SMS.',
  },
  userAgent: { rule: freeText(512), required: false, ...PUBLIC, description: "User agent of the end user's browser." },
  webSiteUrl: {
    rule: freeText(2048),
    required: false,
    ...PUBLIC,
    description: 'Address of the site where the lead was collected.',
  },
  creditRating: { rule: freeText(64), required: false, ...PUBLIC, description: 'Self-reported credit rating.' },
  loanPurpose: { rule: freeText(100), required: false, ...PUBLIC, description: 'Purpose of the loan.' },
  tPar: {
    rule: rule('trackingParams'),
    required: false,
    ...PUBLIC,
    description:
      'Tracking parameters: ampersand-joined pairs of the form tPar[<name>]=<value>, naming affiliate, sub and transaction identifiers.',
    example: 'tPar[affiliate]=a1&tPar[sub]=s2&tPar[transaction]=t3',
  },
} as const satisfies Record<LeadField, LeadFieldFacts>;

export type LeadFieldCatalogue = typeof LEAD_FIELD_CATALOGUE;

/** Every lead field, in proto order. The cast holds: `satisfies` above admits no key but a LeadField, and each. */
export const LEAD_FIELDS = Object.keys(LEAD_FIELD_CATALOGUE) as readonly LeadField[];

/** The facts of one field; the catalogue typed by the common shape. */
export function leadFieldFacts(field: LeadField): LeadFieldFacts {
  return LEAD_FIELD_CATALOGUE[field];
}

/** The fields whose facts pass the test, in proto order. */
export function leadFieldsWhere(test: (facts: LeadFieldFacts) => boolean): readonly LeadField[] {
  return LEAD_FIELDS.filter((field) => test(leadFieldFacts(field)));
}

/** The fields the public spec marks required. */
export const REQUIRED_LEAD_FIELDS = leadFieldsWhere((facts) => facts.required);

/** The applicant's personal data (see LeadFieldFacts.sensitive). */
export const SENSITIVE_LEAD_FIELDS = leadFieldsWhere((facts) => facts.sensitive);

const SENSITIVE_FIELD_NAMES: ReadonlySet<string> = new Set(SENSITIVE_LEAD_FIELDS);

export function isSensitiveLeadField(name: string): boolean {
  return SENSITIVE_FIELD_NAMES.has(name);
}

const LEAD_FIELD_NAMES: ReadonlySet<string> = new Set(LEAD_FIELDS);

export function isLeadField(name: string): name is LeadField {
  return LEAD_FIELD_NAMES.has(name);
}
