import { LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { leadFingerprintSource, validateLead } from '@leadflow/distribution/src/leads/validation';
import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import fc from 'fast-check';
import { anyLead, NOW, validLead } from '../../../support/lead-arbitraries.js';

// Every message the validation can give. A message outside this list fails the properties below, which
// keeps the messages a closed, fixed set that cannot carry a submitted value.
const KNOWN_MESSAGES: ReadonlySet<string> = new Set([
  'is required',
  'must be a string',
  'must be 9 digits',
  'is not a valid Social Security number',
  'must be a valid e-mail address',
  'must be a date in YYYY-MM-DD form',
  'applicant must be 18 to 120 years old',
  'must be a US state code',
  'must be a 5-digit ZIP code or ZIP+4',
  'must be a 10-digit phone number',
  'must be a valid North American phone number',
  'must be an IPv4 or IPv6 address',
  'must be an amount such as 1000.00, with at most 2 decimals',
  'must be from 0.00 to 10000.00',
  'must be from 0.01 to 10000000.00',
  'must be from 0.00 to 1000000.00',
  'must be EMPLOYMENT, BENEFITS or SELF_EMPLOYED',
  'is not a valid ABA routing number',
  'must be 4 to 17 digits',
  'must be 0 or 1',
  'must be 1 to 128 printable ASCII characters, no spaces',
  'must be a whole number from 0 to 1200',
  'must be tPar[name]=value pairs joined by &, each name 1 to 64 letters, digits or _',
  'has a malformed URL encoding',
  'must not repeat a parameter name',
  'must have at most 50 pairs',
  'must not contain control characters',
  'must not contain invisible formatting characters (direction controls, zero-width characters)',
  ...[32, 64, 100, 200, 512, 2048, 4096].map((max) => `must be at most ${max} characters`),
]);

describe('validateLead, property-based', () => {
  it('never throws, and reports only known fields with fixed messages, which cannot echo the value', () => {
    fc.assert(
      fc.property(anyLead, ({ lead, nonStringFields }) => {
        const result = validateLead(lead, nonStringFields, NOW);
        if (result.ok) {
          expect(nonStringFields.filter((name) => (LEAD_FIELDS as readonly string[]).includes(name))).to.deep.equal([]);
          return;
        }
        const errors = Object.entries(result.errors);
        expect(errors.length).to.be.above(0);
        for (const [field, message] of errors) {
          expect(LEAD_FIELDS as readonly string[]).to.include(field);
          expect(KNOWN_MESSAGES.has(message), `unknown message ${JSON.stringify(message)}`).to.equal(true);
        }
        for (const field of nonStringFields) {
          if ((LEAD_FIELDS as readonly string[]).includes(field))
            expect(result.errors[field]).to.equal('must be a string');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts every valid lead and normalizes it as expected', () => {
    const now = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-12-31'), noInvalidDate: true })
      .filter((date) => !(date.getUTCMonth() === 1 && date.getUTCDate() === 29));
    fc.assert(
      fc.property(validLead(now), ({ now: at, lead, expected }) => {
        const result = validateLead(lead, [], at);
        if (!result.ok) expect.fail(`rejected ${JSON.stringify(result.errors)}`);
        const { ageYears, ...normalized } = result.lead;
        expect(normalized).to.deep.equal(expected);
        expect(ageYears).to.be.within(18, 120);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same fingerprint whatever the key order of the body', () => {
    fc.assert(
      fc.property(
        validLead(fc.constant(NOW)),
        fc.shuffledSubarray([...LEAD_FIELDS], { minLength: LEAD_FIELDS.length }),
        ({ lead }, shuffled) => {
          const reordered = Object.fromEntries(shuffled.map((field) => [field, lead[field]])) as unknown as Lead;
          const first = validateLead(lead, [], NOW);
          const second = validateLead(reordered, [], NOW);
          if (!first.ok || !second.ok) expect.fail('a valid lead was rejected');
          expect(leadFingerprintSource(second.lead)).to.equal(leadFingerprintSource(first.lead));
        },
      ),
      { numRuns: 500 },
    );
  });
});
