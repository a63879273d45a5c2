import { randomUUID } from 'node:crypto';

/** A complete, valid lead as a publisher posts it; each call has its own clickid. */
export function validLeadBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    price: '10.00',
    loanAmount: '1500',
    ssn: '123-45-6789',
    firstName: 'Maria',
    lastName: 'Garcia',
    email: 'maria.garcia@example.com',
    dob: '1986-04-12',
    address: '1200 Market St',
    city: 'San Francisco',
    state: 'CA',
    zip: '94102',
    homePhone: '4155550123',
    cellPhone: '4155550188',
    userIp: '203.0.113.7',
    clickid: `click-${randomUUID()}`,
    incomeType: 'EMPLOYMENT',
    incomeNetMonthly: '4200',
    bankAba: '021000021',
    bankAccountNumber: '000123456789',
    tPar: 'tPar[affiliate]=aff42&tPar[sub]=spring&tPar[transaction]=tx-9001',
    ...overrides,
  };
}
