import type { LeadFactsInput } from '@leadflow/distribution/src/buyers/rules/lead-facts';

/** The smallest valid buyer, with top-level keys replaced by `overrides`. */
export function minimalBuyer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'minimal',
    pricing: { type: 'fixed', price: '10.00' },
    integration: {
      post: {
        url: 'https://buyer.example/post',
        mapping: { ssn: 'ssn' },
        response: { accepted: { path: '$.status', equals: 'accepted' } },
      },
    },
    ...overrides,
  };
}

/** A lead as validation leaves it: normalized fields, '' for those not sent. */
export function leadInput(
  overrides: Partial<LeadFactsInput> & { fields?: Record<string, string> } = {},
): LeadFactsInput {
  return {
    ageYears: 35,
    loanAmountCents: 150_000,
    incomeNetMonthlyCents: 320_050,
    test: false,
    publisherId: 'pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D',
    now: new Date('2025-06-16T15:30:00Z'),
    ...overrides,
    fields: {
      price: '12.50',
      loanAmount: '1500.00',
      ssn: '123456789',
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'jane.doe@example.com',
      dob: '1990-04-01',
      address: '12 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      homePhone: '2175550134',
      cellPhone: '2175550199',
      userIp: '203.0.113.7',
      clickid: 'click-0001',
      testMode: '0',
      incomeType: 'EMPLOYMENT',
      incomeNetMonthly: '3200.50',
      bankAba: '021000021',
      bankAccountNumber: '',
      incomeNextDate1: '2025-06-20',
      bankAccountLengthMonths: '36',
      addressLengthMonths: '',
      bankAccountType: 'checking',
      ...overrides.fields,
    },
  };
}
