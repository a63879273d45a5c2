/**
 * The rule a lead field's value follows, by kind and parameters. The distribution service implements
 * each kind (leads/field-rules.ts); this module says what each kind means elsewhere: the facts the
 * OpenAPI document states, how a buyer's filter reads the value, which mapping transform fits it.
 */
export type LeadFieldRule =
  | { kind: 'amount'; minCents: number; maxCents: number }
  | { kind: 'freeText'; maxLength: number }
  | { kind: 'ssn' }
  | { kind: 'email' }
  | { kind: 'birthDate' }
  | { kind: 'calendarDate' }
  | { kind: 'stateCode' }
  | { kind: 'zip' }
  | { kind: 'phone' }
  | { kind: 'ipAddress' }
  | { kind: 'clickid' }
  | { kind: 'testFlag' }
  | { kind: 'incomeType' }
  | { kind: 'abaRoutingNumber' }
  | { kind: 'bankAccountNumber' }
  | { kind: 'months' }
  | { kind: 'trackingParams' };

export type LeadFieldRuleKind = LeadFieldRule['kind'];

export type LeadFieldRuleOf<K extends LeadFieldRuleKind> = Extract<LeadFieldRule, { kind: K }>;

/** A decimal amount in dollars, at most 2 decimals, within [minCents, maxCents]. */
export function amount(minCents: number, maxCents: number): LeadFieldRuleOf<'amount'> {
  return { kind: 'amount', minCents, maxCents };
}

/** Text of at most maxLength characters, without control or invisible formatting characters. */
export function freeText(maxLength: number): LeadFieldRuleOf<'freeText'> {
  return { kind: 'freeText', maxLength };
}

/** A rule without parameters. */
export function rule<K extends Exclude<LeadFieldRuleKind, 'amount' | 'freeText'>>(kind: K): { kind: K } {
  return { kind };
}

export const INCOME_TYPES = ['EMPLOYMENT', 'BENEFITS', 'SELF_EMPLOYED'] as const;

export const MAX_TRACKING_PARAMS_LENGTH = 4096;

export const MAX_CLICKID_LENGTH = 128;

/** What kind of value a buyer's filter reads from a field: amounts are compared in dollars. */
export type FilterKind = 'text' | 'number' | 'dollars' | 'boolean';

/**
 * JSON Schema facts of a value as sent, after surrounding whitespace (which is ignored): a pattern
 * every accepted value matches, lengths and enums. A state code is any case, so it is a pattern, not an
 * enum of the upper-case codes; income types are the spec's enum, though validation takes lower case too. Checks that no pattern can state (checksums, ranges, real dates) stay in the
 * descriptions.
 */
export interface ValueSchema {
  pattern?: string;
  maxLength?: number;
  enum?: readonly string[];
  format?: 'date' | 'email';
}

/** Punctuation a phone number may carry anywhere: "(555) 234-5678", "+1 555.234.5678". */
const PHONE_PUNCTUATION = '[ ().-]*';

const SCHEMAS: { [K in LeadFieldRuleKind]: (rule: LeadFieldRuleOf<K>) => ValueSchema } = {
  amount: () => ({ pattern: '^\\d+(?:\\.\\d{1,2})?$' }),
  freeText: (rule) => ({ maxLength: rule.maxLength }),
  ssn: () => ({ pattern: '^(?:\\d{9}|\\d{3}-\\d{2}-\\d{4})$' }),
  email: () => ({ format: 'email', maxLength: 254 }),
  birthDate: () => ({ format: 'date' }),
  calendarDate: () => ({ format: 'date' }),
  stateCode: () => ({ pattern: '^[A-Za-z]{2}$' }),
  zip: () => ({ pattern: '^\\d{5}(?:-\\d{4})?$' }),
  phone: () => ({
    pattern: `^${PHONE_PUNCTUATION}(?:\\+?${PHONE_PUNCTUATION}1${PHONE_PUNCTUATION})?(?:\\d${PHONE_PUNCTUATION}){10}$`,
  }),
  ipAddress: () => ({}),
  clickid: () => ({ pattern: `^[!-~]{1,${MAX_CLICKID_LENGTH}}$`, maxLength: MAX_CLICKID_LENGTH }),
  testFlag: () => ({ enum: ['0', '1'] }),
  incomeType: () => ({ enum: INCOME_TYPES }),
  abaRoutingNumber: () => ({ pattern: '^\\d{9}$' }),
  bankAccountNumber: () => ({ pattern: '^\\d{4,17}$' }),
  months: () => ({ pattern: '^\\d{1,4}$' }),
  trackingParams: () => ({ maxLength: MAX_TRACKING_PARAMS_LENGTH }),
};

export function valueSchema(rule: LeadFieldRule): ValueSchema {
  const schemaOf = SCHEMAS[rule.kind] as (rule: LeadFieldRule) => ValueSchema;
  return schemaOf(rule);
}

const FILTER_KINDS: Partial<Record<LeadFieldRuleKind, FilterKind>> = {
  amount: 'dollars',
  months: 'number',
  testFlag: 'boolean',
};

/** How a buyer's filter reads a value of this rule; everything but amounts, months and the test flag is text. */
export function filterKindOf(rule: LeadFieldRule): FilterKind {
  return FILTER_KINDS[rule.kind] ?? 'text';
}

/** The mapping transform written for a value's form ({date} or {phone}), if it has one. */
export function formTransformOf(rule: LeadFieldRule): 'date' | 'phone' | undefined {
  if (rule.kind === 'birthDate' || rule.kind === 'calendarDate') return 'date';
  return rule.kind === 'phone' ? 'phone' : undefined;
}
