import type { HttpExchange, ResponseParser } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import type { LeadForBuyer } from '@leadflow/distribution/src/buyers/integration/request-builder';

export const JSON_STATUS_PARSER: ResponseParser = {
  format: 'json',
  accepted: { path: '$.status', equals: 'accepted' },
  price: undefined,
  reason: { path: '$.reason' },
  reference: undefined,
  redirectUrl: undefined,
};

export function exchange(overrides: Partial<HttpExchange> = {}): HttpExchange {
  return {
    url: 'https://api.lender.example/leads',
    testUrl: undefined,
    method: 'POST',
    format: 'json',
    headers: {},
    auth: undefined,
    mapping: {},
    response: JSON_STATUS_PARSER,
    ...overrides,
  };
}

export function lead(
  overrides: { fields?: Record<string, string>; derived?: LeadForBuyer['derived'] } = {},
): LeadForBuyer {
  return {
    leadId: 'lead-0001',
    fields: {
      firstName: 'Jane',
      lastName: 'Doe',
      email: 'jane.doe@example.com',
      ssn: '123456789',
      dob: '1990-04-01',
      state: 'IL',
      zip: '62701',
      cellPhone: '2175550199',
      loanAmount: '1500.00',
      incomeNetMonthly: '3200.50',
      incomeType: 'employment',
      workPhone: '',
      testMode: '',
      ...overrides.fields,
    },
    derived: { age: 35, loanAmount: 1500, incomeNetMonthly: 3200.5, testMode: false, ...overrides.derived },
  };
}
