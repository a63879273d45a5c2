import type { FilterRule } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { evaluateFilter, type LeadFacts, leadFacts } from '@leadflow/distribution/src/buyers/rules/filters';
import { expect } from 'chai';
import { leadInput } from '../../../../support/buyer-documents.js';

const facts = leadFacts(leadInput(), 'America/Chicago');

const matches = (rule: FilterRule, on: LeadFacts = facts): boolean => evaluateFilter(rule, on);

describe('leadFacts', () => {
  it('holds the normalized fields, amounts in dollars, months as numbers, and leaves out fields not sent', () => {
    expect(facts).to.deep.include({
      state: 'IL',
      email: 'jane.doe@example.com',
      price: 12.5,
      loanAmount: 1500,
      incomeNetMonthly: 3200.5,
      bankAccountLengthMonths: 36,
      testMode: false,
      age: 35,
      publisherId: 'pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D',
    });
    expect(facts.bankAccountNumber).to.equal(undefined);
    expect(facts.addressLengthMonths).to.equal(undefined);
    expect(facts.driversLicenseState).to.equal(undefined);
  });

  it('has no monthly income when none was sent', () => {
    expect(
      leadFacts(leadInput({ incomeNetMonthlyCents: null, fields: { incomeNetMonthly: '' } }), 'UTC').incomeNetMonthly,
    ).to.equal(undefined);
  });

  it('reads hour and day on the wall clock of the zone, across a daylight saving time change', () => {
    const newYork = (iso: string) => {
      const { hourOfDay, dayOfWeek } = leadFacts(leadInput({ now: new Date(iso) }), 'America/New_York');
      return { hourOfDay, dayOfWeek };
    };
    // 2025-03-09: clocks in New York jump from 02:00 EST to 03:00 EDT (07:00 UTC).
    expect(newYork('2025-03-09T06:59:00Z')).to.deep.equal({ hourOfDay: 1, dayOfWeek: 'sun' });
    expect(newYork('2025-03-09T07:00:00Z')).to.deep.equal({ hourOfDay: 3, dayOfWeek: 'sun' });
    // The same UTC hour is 9 in winter and 10 in summer.
    expect(newYork('2025-01-15T14:00:00Z').hourOfDay).to.equal(9);
    expect(newYork('2025-07-15T14:00:00Z').hourOfDay).to.equal(10);
    // 2025-11-02: 01:00 to 02:00 happens twice; both are hour 1.
    expect(newYork('2025-11-02T05:30:00Z').hourOfDay).to.equal(1);
    expect(newYork('2025-11-02T06:30:00Z').hourOfDay).to.equal(1);
    // Late Saturday evening in New York is already Sunday in UTC.
    expect(newYork('2025-06-15T02:30:00Z')).to.deep.equal({ hourOfDay: 22, dayOfWeek: 'sat' });
  });

  it('counts whole days to the next pay date on the calendar of the zone', () => {
    const days = (payDate: string, iso: string, zone = 'America/New_York') =>
      leadFacts(leadInput({ now: new Date(iso), fields: { incomeNextDate1: payDate } }), zone).daysUntilNextPayDate;
    expect(days('2025-06-20', '2025-06-16T15:30:00Z')).to.equal(4);
    expect(days('2025-06-16', '2025-06-16T23:59:00Z')).to.equal(0);
    expect(days('2025-06-15', '2025-06-16T12:00:00Z')).to.equal(-1);
    // 01:00 UTC on the 17th is still the 16th in New York.
    expect(days('2025-06-20', '2025-06-17T01:00:00Z')).to.equal(4);
    expect(days('2025-06-20', '2025-06-17T01:00:00Z', 'UTC')).to.equal(3);
    // Across the spring change, a day is still a day.
    expect(days('2025-03-10', '2025-03-08T17:00:00Z')).to.equal(2);
    expect(days('', '2025-06-16T12:00:00Z')).to.equal(undefined);
  });
});

describe('evaluateFilter', () => {
  it('equals, ignoring case for text', () => {
    expect(matches({ field: 'state', equals: 'IL' })).to.equal(true);
    expect(matches({ field: 'bankAccountType', equals: 'CHECKING' })).to.equal(true);
    expect(matches({ field: 'state', equals: 'CA' })).to.equal(false);
    expect(matches({ field: 'age', equals: 35 })).to.equal(true);
    expect(matches({ field: 'loanAmount', equals: 1500 })).to.equal(true);
    expect(matches({ field: 'testMode', equals: false })).to.equal(true);
    expect(matches({ field: 'testMode', equals: true })).to.equal(false);
  });

  it('in', () => {
    expect(matches({ field: 'state', in: ['CA', 'il', 'TX'] })).to.equal(true);
    expect(matches({ field: 'state', in: ['CA', 'TX'] })).to.equal(false);
    expect(matches({ field: 'bankAccountLengthMonths', in: [12, 36] })).to.equal(true);
  });

  it('range, bounds included, amounts in dollars', () => {
    expect(matches({ field: 'loanAmount', range: { min: 1500, max: 1500 } })).to.equal(true);
    expect(matches({ field: 'loanAmount', range: { min: 1500.01 } })).to.equal(false);
    expect(matches({ field: 'incomeNetMonthly', range: { max: 3200.5 } })).to.equal(true);
    expect(matches({ field: 'incomeNetMonthly', range: { max: 3200.49 } })).to.equal(false);
    expect(matches({ field: 'age', range: { min: 18, max: 34 } })).to.equal(false);
    expect(matches({ field: 'price', range: { min: 10 } })).to.equal(true);
    expect(matches({ field: 'daysUntilNextPayDate', range: { max: 7 } })).to.equal(true);
  });

  it('pattern, unanchored unless it says so, ignoring case', () => {
    expect(matches({ field: 'email', pattern: '@EXAMPLE\\.com$' })).to.equal(true);
    expect(matches({ field: 'email', pattern: 'doe' })).to.equal(true);
    expect(matches({ field: 'email', pattern: '^doe' })).to.equal(false);
    expect(matches({ field: 'zip', pattern: '^627' })).to.equal(true);
  });

  it('exists', () => {
    expect(matches({ field: 'bankAba', exists: true })).to.equal(true);
    expect(matches({ field: 'bankAba', exists: false })).to.equal(false);
    expect(matches({ field: 'bankAccountNumber', exists: false })).to.equal(true);
    expect(matches({ field: 'bankAccountNumber', exists: true })).to.equal(false);
  });

  it('never matches a missing value except with exists: false', () => {
    const missing = 'driversLicenseState';
    expect(matches({ field: missing, equals: 'IL' })).to.equal(false);
    expect(matches({ field: missing, in: ['IL'] })).to.equal(false);
    expect(matches({ field: missing, pattern: '.*' })).to.equal(false);
    expect(
      matches(
        { field: 'incomeNetMonthly', range: { min: 0 } },
        leadFacts(leadInput({ incomeNetMonthlyCents: null }), 'UTC'),
      ),
    ).to.equal(false);
    expect(
      matches(
        { field: 'daysUntilNextPayDate', range: { max: 100 } },
        leadFacts(leadInput({ fields: { incomeNextDate1: '' } }), 'UTC'),
      ),
    ).to.equal(false);
    expect(matches({ not: { field: missing, equals: 'IL' } })).to.equal(true);
  });

  it('combines with all, any and not, nested', () => {
    const inIllinois: FilterRule = { field: 'state', equals: 'IL' };
    const inTexas: FilterRule = { field: 'state', equals: 'TX' };
    expect(matches({ all: [inIllinois, { field: 'age', range: { min: 21 } }] })).to.equal(true);
    expect(matches({ all: [inIllinois, inTexas] })).to.equal(false);
    expect(matches({ any: [inTexas, inIllinois] })).to.equal(true);
    expect(matches({ any: [inTexas, { not: inIllinois }] })).to.equal(false);
    expect(matches({ not: { not: inIllinois } })).to.equal(true);
    expect(
      matches({
        all: [
          { any: [inTexas, { all: [inIllinois, { field: 'loanAmount', range: { max: 2000 } }] }] },
          { not: { field: 'email', pattern: '@spam\\.' } },
        ],
      }),
    ).to.equal(true);
  });

  it('reads derived values', () => {
    const mondayMorning = leadFacts(
      leadInput({ now: new Date('2025-06-16T14:30:00Z'), test: true }),
      'America/Chicago',
    );
    expect(matches({ field: 'hourOfDay', range: { min: 9, max: 9 } }, mondayMorning)).to.equal(true);
    expect(matches({ field: 'dayOfWeek', in: ['mon', 'tue'] }, mondayMorning)).to.equal(true);
    expect(matches({ field: 'testMode', equals: true }, mondayMorning)).to.equal(true);
    expect(matches({ field: 'publisherId', equals: 'pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D' }, mondayMorning)).to.equal(true);
  });
});
